"""After a write, a worker's passage vectors (`semantic.process_vectors`, kept per store
generation) are brought up to date by reading only the cases the write named: reading every
case's vectors again took 5 s at 100,000 cases, paid by the next search of every worker
after every edit. What the worker then holds must be, array for array, what reading
everything gives; a write that names no cases, or a link two writers contested, reads
everything again."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from incidents import store_cache
from incidents.models import Case
from incidents.search import large_arrays, semantic
from incidents.search.models import CaseEmbedding
from incidents.services import change_status, delete_cases, save_case_document
from incidents.workflow import REVIEWER
from tests.conftest import load_fixture
from tests.editorial.conftest import make_user
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["in memory", "filed"], autouse=True)
def filing(request, monkeypatch, tmp_path):
    """The worker's vectors held in its own memory, or filed to be shared by the workers
    (`large_arrays.Rows`, from the smallest matrix on): the same arrays either way."""
    if request.param == "filed":
        monkeypatch.setattr(large_arrays, "SHARED_FROM", 0)
        monkeypatch.setattr(semantic, "shared_folder", lambda: tmp_path / "vectors")
    else:
        monkeypatch.setattr(semantic, "shared_folder", lambda: None)
    return request.param


@pytest.fixture
def vector_reads(monkeypatch):
    """Each `load_vectors` call: "every" for every published case, else the ids asked for."""
    calls: list[object] = []
    real = semantic.load_vectors

    def counted(cases=None, **options):
        calls.append("every" if cases is None else sorted(cases.values_list("id", flat=True)))
        return real(cases, **options)

    monkeypatch.setattr(semantic, "load_vectors", counted)
    return calls


def assert_same_vectors(held: semantic.Vectors, read: semantic.Vectors) -> None:
    assert held.ids == read.ids
    assert np.array_equal(held.owner, read.owner)
    assert held.matrix.dtype == read.matrix.dtype
    assert np.array_equal(held.matrix, read.matrix)
    assert held.scale is not None and read.scale is not None
    assert np.array_equal(held.scale, read.scale)
    if held.sketched is not None:
        # The sketch a large store's search ranks by first follows the rows: those of the
        # cases read again projected on the directions held (within a step of rounding,
        # which a product of other shape may move).
        projection, rows = held.sketched
        expected = projection.rows(np.asarray(read.matrix).astype(np.float32) * read.scale[:, None])
        assert rows.shape == expected.shape
        assert np.abs(np.asarray(rows).astype(np.int16) - expected).max() <= 1
        if held.lists is not None:
            # So do the inverted file's lists (`inverted.py`): every row in one, list after list.
            assert sorted(held.lists.order.tolist()) == list(range(len(read.matrix)))
            assert np.array_equal(np.asarray(held.lists.rows), np.asarray(rows)[held.lists.order])


def test_after_edits_a_retraction_an_import_and_a_delete_only_those_cases_are_read(
    store_cache_on, vector_reads, import_synthetic, filing
):
    before = semantic.process_vectors()
    assert vector_reads == ["every"]
    assert "IL-0428" in before.ids and "IL-0429" in before.ids and "IL-0431" in before.ids
    before.inverted_file()  # as a search in a large store has it sketched and listed

    edited = copy.deepcopy(load_fixture("IL-0428"))
    edited["summary"] = "Edited: the job hung in an all-reduce once the new racks joined the fabric."
    assert save_case_document(edited, reason="test edit").changed
    change_status("IL-0429", "retracted", user=make_user("rita", REVIEWER), reason="Source withdrawn")
    new_ids = import_synthetic(synthetic_case(1), synthetic_case(2))
    delete_cases(["IL-0431"])

    after = semantic.process_vectors()
    # The cases named since (IL-0431 among them, though no row of it is left to read).
    assert vector_reads == ["every", sorted(["IL-0428", "IL-0429", *new_ids])]
    assert "IL-0429" not in after.ids and "IL-0431" not in after.ids
    assert set(new_ids) <= set(after.ids)
    assert after.sketched is not None and after.sketched[0] is before.sketched_rows()[0]
    assert after.lists is not None and after.lists.centroids is before.inverted_file().centroids
    assert_same_vectors(after, semantic.load_vectors())
    # The edited case's rows are its new passages', not the ones held before.
    row = before.ids.index("IL-0428")
    new_row = after.ids.index("IL-0428")
    old_rows = before.matrix[before.owner == row]
    new_rows = after.matrix[after.owner == new_row]
    assert old_rows.shape == new_rows.shape and not np.array_equal(old_rows, new_rows)
    # Filed, the updated rows are a file of their own, read-only; the rows held before stay
    # readable (a search that began before the write still scores them).
    assert isinstance(after.matrix, np.ndarray) == (filing == "in memory")
    assert isinstance(before.matrix, np.ndarray) == (filing == "in memory")


def test_a_case_published_after_review_takes_its_place_in_id_order(
    store_cache_on, vector_reads, import_synthetic
):
    # IL-900003 sorts between the fixtures and nothing: IL-0429 is dropped mid-list meanwhile.
    (reviewed,) = import_synthetic(synthetic_case(3, status="in_review"))
    held = semantic.process_vectors()
    assert reviewed not in held.ids
    reviewer = make_user("rita", REVIEWER)
    change_status(reviewed, "published", user=reviewer)
    change_status("IL-0429", "retracted", user=reviewer, reason="Source withdrawn")
    now = semantic.process_vectors()
    assert vector_reads == ["every", sorted([reviewed, "IL-0429"])]
    assert now.ids == sorted(Case.objects.published().values_list("id", flat=True))
    assert reviewed in now.ids
    assert_same_vectors(now, semantic.load_vectors())


def test_a_write_naming_no_cases_reads_every_vector_again(store_cache_on, vector_reads):
    semantic.process_vectors()
    store_cache.changed()  # as a full rebuild does
    semantic.process_vectors()
    assert vector_reads == ["every", "every"]


def test_between_writes_nothing_is_read_and_an_empty_change_reads_nothing(store_cache_on, vector_reads):
    first = semantic.process_vectors()
    assert semantic.process_vectors() is first
    store_cache.changed([])  # a vocabulary import that rewrote no case
    assert semantic.process_vectors() is first
    assert vector_reads == ["every"]


def test_a_link_two_writers_filed_from_one_generation_is_spoilt(store_cache_on):
    held = store_cache.generation()
    store_cache._file_delta(held, "after-first", ("IL-0428",))
    assert store_cache.changed_between(held, "after-first") == frozenset({"IL-0428"})
    store_cache._file_delta(held, "after-second", ("IL-0429",))  # read the same token
    assert store_cache.changed_between(held, "after-first") is None
    assert store_cache.changed_between(held, "after-second") is None


def test_the_changed_cases_are_gathered_along_the_chain(store_cache_on):
    held = store_cache.generation()
    store_cache.changed(["IL-0428"])
    store_cache.changed(["IL-0429", "IL-0428"])
    now = store_cache.generation()
    assert store_cache.changed_between(held, now) == frozenset({"IL-0428", "IL-0429"})
    assert store_cache.changed_between(now, held) is None  # never reached: read everything
    assert store_cache.changed_between("a-token-nobody-filed", now) is None


def test_cases_encoded_after_a_deferred_import_are_taken_in_as_each_batch_lands(
    store_cache_on, vector_reads, django_capture_on_commit_callbacks
):
    # As a first bulk import leaves it (`deferred.py`): published, named, but no vectors yet.
    CaseEmbedding.objects.filter(case_id__in=["IL-0428", "IL-0430"]).delete()
    store_cache.changed(["IL-0428", "IL-0430"])
    held = semantic.process_vectors()
    assert "IL-0428" not in held.ids and "IL-0430" not in held.ids
    with django_capture_on_commit_callbacks(execute=True):
        assert semantic.encode_missing() == ["IL-0428", "IL-0430"]
    now = semantic.process_vectors()
    assert vector_reads == ["every", ["IL-0428", "IL-0430"]]
    assert "IL-0428" in now.ids and "IL-0430" in now.ids
    assert_same_vectors(now, semantic.load_vectors())


def test_a_write_naming_over_a_quarter_of_the_library_files_a_full_read(store_cache_on, vector_reads):
    # Reading that many again costs about what reading everything does, and every reader
    # would fetch the whole list (100,000 ids after a large import) from the shared cache.
    ids = sorted(Case.objects.values_list("id", flat=True))
    many = ids[: store_cache.FULL_READ_FLOOR + 1]
    assert len(many) > store_cache.FULL_READ_SHARE * len(ids)
    semantic.process_vectors()
    held = store_cache.generation()
    store_cache.changed(many)
    assert store_cache.changed_between(held, store_cache.generation()) is None
    assert_same_vectors(semantic.process_vectors(), semantic.load_vectors())
    assert vector_reads[:2] == ["every", "every"]


def test_a_write_naming_few_cases_files_them_whatever_the_librarys_size(store_cache_on):
    ids = sorted(Case.objects.values_list("id", flat=True))
    few = ids[: store_cache.FULL_READ_FLOOR]  # over a quarter of 173, but a short list: no count
    held = store_cache.generation()
    store_cache.changed(few)
    assert store_cache.changed_between(held, store_cache.generation()) == frozenset(few)
