"""The first stage of a search's semantic ranking in a store of at least `INVERTED_FROM`
cases: the passages' sketches grouped in lists by their nearest centroid (`inverted.py`); a
query reads the lists of its nearest centroids, and the cases best there are scored exactly
from their rows. A write puts its cases' passages in the lists of their nearest centroids;
what a search reads after it is the store as the write left it, on both backends."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from incidents.search import inverted, large_arrays, semantic, sketch
from incidents.search.semantic import Vectors
from incidents.services import save_case_document
from tests.conftest import load_fixture
from tests.factories import synthetic_case

from .test_semantic_first_stage import planted, random_store


def test_every_row_is_in_one_list_and_the_lists_are_its_nearest_centroid(monkeypatch, tmp_path):
    store = random_store(900, seed=11)
    monkeypatch.setattr(inverted, "LIST_ROWS", 100)  # 27 lists
    monkeypatch.setattr(inverted, "GROUP_ROWS", 500)  # filed in several groups
    projection, rows = store.sketched_rows()
    index = inverted.InvertedFile.built(projection, rows)
    assert len(index.centroids) == 27 and index.starts[0] == 0 and index.starts[-1] == len(rows)
    assert sorted(index.order.tolist()) == list(range(len(rows)))
    for number in range(len(index.centroids)):
        members = index.order[index.starts[number] : index.starts[number + 1]]
        assert (index.lists[members] == number).all()
        assert members.tolist() == sorted(members.tolist())
    assert np.array_equal(index.rows, rows[index.order])
    # Each row is in its nearest centroid's list.
    points = rows.astype(np.float32) * projection.step
    distances = ((points[:, None, :] - index.centroids[None]) ** 2).sum(axis=2)
    assert np.array_equal(index.lists, distances.argmin(axis=1))
    # The same rows give the same centroids; filed, the same rows list after list.
    again = inverted.InvertedFile.built(projection, rows.copy(), tmp_path)
    assert isinstance(again.rows, large_arrays.FileRows) or len(rows) * 96 < large_arrays.SHARED_FROM
    assert np.array_equal(again.centroids, index.centroids) and np.array_equal(again.lists, index.lists)
    assert np.array_equal(np.asarray(again.rows), np.asarray(index.rows))


def test_a_query_reads_the_lists_of_its_nearest_centroids(monkeypatch):
    store = random_store(600, seed=12)
    monkeypatch.setattr(inverted, "LIST_ROWS", 100)
    projection, rows = store.sketched_rows()
    index = inverted.InvertedFile.built(projection, rows)
    query = store._floats(np.array([5]))[0]
    query /= np.linalg.norm(query)
    read, sims = index.nearest(projection, query, probes=3)
    affinity = index.centroids @ (projection.basis @ query)
    chosen = set(np.argsort(-affinity)[:3].tolist())
    assert set(index.lists[read].tolist()) == chosen
    assert len(read) == sum(int(index.starts[c + 1] - index.starts[c]) for c in chosen)
    assert sims == pytest.approx(sketch.similarities(rows[read], projection.weights(query)), abs=1e-5)
    # Every list read: every row, each once.
    everything, _ = index.nearest(projection, query, probes=10_000)
    assert sorted(everything.tolist()) == list(range(len(rows)))


def test_a_large_store_scores_exactly_the_cases_its_lists_find(monkeypatch):
    store, query, near = planted(5000, 20, seed=4)
    monkeypatch.setattr(semantic, "INVERTED_FROM", 1000)
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 50)
    monkeypatch.setattr(semantic, "INVERTED_DEPTH", 50)
    monkeypatch.setattr(inverted, "LIST_ROWS", 200)  # 100 lists
    monkeypatch.setattr(inverted, "PROBES", 10)
    exact = store.case_scores(query)
    best_exact = sorted(exact, key=lambda c: (-exact[c], c))[:20]
    assert sorted(best_exact) == near
    far = sorted(exact, key=lambda c: (exact[c], c))[:3]
    scores = store.search_scores(query, also=far)
    assert store.lists is not None and len(store.lists.centroids) == 100
    assert set(near) <= set(scores) and set(far) <= set(scores) and len(scores) <= 53
    # Each scored exactly: the same first 20 in the same order, the lexical cases' values.
    assert sorted(scores, key=lambda c: (-scores[c], c))[:20] == best_exact
    for case_id in [*best_exact, *far]:
        assert scores[case_id] == pytest.approx(exact[case_id], abs=1e-6)
    # Filtered: only allowed cases; with a tenth allowed, ten times the lists are read.
    allowed = set(near[::2]) | {f"IL-{n:05d}" for n in range(0, 5000, 10)}
    read: list[int] = []
    real = inverted.InvertedFile.nearest

    def counted(self, projection, vector, probes):
        read.append(probes)
        return real(self, projection, vector, probes)

    monkeypatch.setattr(inverted.InvertedFile, "nearest", counted)
    filtered = store.search_scores(query, allowed=allowed)
    assert set(filtered) <= allowed and set(near[::2]) <= set(filtered)
    assert read == [int(np.ceil(10 * 5000 / len(allowed)))]


def test_a_store_below_the_size_keeps_the_sketch_pass_and_builds_no_lists(monkeypatch):
    store, query, near = planted(3000, 20, seed=5)
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 50)
    assert len(store.ids) < semantic.INVERTED_FROM
    scores = store.search_scores(query)
    assert len(scores) == 50 and set(near) <= set(scores) and store.lists is None


def test_new_rows_join_the_lists_of_their_nearest_centroids(monkeypatch, tmp_path):
    store = random_store(400, seed=13)
    monkeypatch.setattr(inverted, "LIST_ROWS", 100)
    monkeypatch.setattr(large_arrays, "SHARED_FROM", 0)
    index = store.inverted_file()
    fresh = random_store(2, seed=14)
    fresh.ids = ["IL-00003", "IL-00400"]  # a new text of IL-00003, and a new case last
    after = store.replacing(frozenset({"IL-00003", "IL-00400"}), fresh, folder=tmp_path)
    assert after.lists is not None and after.sketched is not None
    assert after.lists.centroids is index.centroids  # placed, not fitted again
    projection, rows = after.sketched
    kept = after.owner != 3
    kept &= after.owner != after.ids.index("IL-00400")
    assert np.array_equal(after.lists.lists[kept], index.lists[store.owner != 3])
    added = np.flatnonzero(~kept)
    assert len(added) == 6
    assert np.array_equal(
        after.lists.lists[added], inverted.assigned(index.centroids, projection, rows[added])
    )
    # The lists hold the new store's rows, each once, list after list.
    assert sorted(after.lists.order.tolist()) == list(range(len(after.owner)))
    assert np.array_equal(np.asarray(after.lists.rows), np.asarray(rows)[after.lists.order])
    # Scored after the write, the new passages are found where they belong.
    query = after._floats(np.array([added[0]]))[0]
    query /= np.linalg.norm(query)
    read, _ = after.lists.nearest(projection, query, probes=1)
    assert added[0] in read


@pytest.mark.django_db
def test_a_search_after_an_import_and_an_edit_reads_the_lists_of_the_store_as_written(
    monkeypatch, store_cache_on, import_synthetic, tmp_path
):
    """The fixture library with the inverted file from 100 cases on: after an import of ten
    cases and an edit, the vectors a search scores are those of the store as written (the
    new cases in their lists, the edited case's old passages in none), each case's score
    the exact one."""
    from incidents.search import fusion, ranking, search_cases

    monkeypatch.setattr(large_arrays, "SHARED_FROM", 0)
    monkeypatch.setattr(semantic, "shared_folder", lambda: tmp_path / "vectors")
    monkeypatch.setattr(semantic, "INVERTED_FROM", 100)
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 10)
    monkeypatch.setattr(semantic, "INVERTED_DEPTH", 40)
    monkeypatch.setattr(inverted, "LIST_ROWS", 50)
    monkeypatch.setattr(inverted, "PROBES", 4)
    seen: list[semantic.CaseScores] = []
    real = fusion.fuse

    def spy(lexical, scores, **options):
        seen.append(scores)
        return real(lexical, scores, **options)

    monkeypatch.setattr(ranking, "fuse", spy)
    text = "nccl watchdog timeout"
    assert search_cases(query=text, limit=20).hits
    before = semantic.process_vectors()
    assert before.lists is not None and len(before.lists.centroids) == len(before.matrix) // 50

    new_ids = import_synthetic(*(synthetic_case(n) for n in range(20, 30)))
    edited = copy.deepcopy(load_fixture("IL-0428"))
    edited["summary"] = "Edited: the job hung in an all-reduce once the new racks joined the fabric."
    assert save_case_document(edited, reason="test edit").changed
    assert search_cases(query=text, limit=20).hits is not None
    after = semantic.process_vectors()
    assert after is not before and after.lists is not None and after.sketched is not None
    assert after.lists.centroids is before.lists.centroids  # placed without a rebuild
    assert set(new_ids) <= set(after.ids)
    read = semantic.load_vectors()
    assert after.ids == read.ids and np.array_equal(np.asarray(after.matrix), np.asarray(read.matrix))
    # Every row of the store as written is in one list, the rows list after list its own.
    assert sorted(after.lists.order.tolist()) == list(range(len(read.matrix)))
    projection, rows = after.sketched
    assert np.array_equal(np.asarray(after.lists.rows), np.asarray(rows)[after.lists.order])
    assert read.scale is not None  # int8 rows, as `load_vectors` reads them
    expected = projection.rows(np.asarray(read.matrix).astype(np.float32) * read.scale[:, None])
    assert np.abs(np.asarray(rows).astype(np.int16) - expected).max() <= 1
    # The scores fused are the exact ones of the store as written (the edit's new text).
    query = semantic.query_vector(text)
    assert query is not None
    exact = read.case_scores(query)
    scores = seen[-1]
    assert len(scores) < len(exact)
    for case_id in scores:
        assert scores[case_id] == pytest.approx(exact[case_id], abs=1e-6)
    # A new case's passages are found by a query near them.
    new_row = int(np.flatnonzero(after.owner == after.ids.index(new_ids[0]))[0])
    near = after._floats(np.array([new_row]))[0]
    near /= np.linalg.norm(near)
    assert new_ids[0] in after.search_scores(near)


def test_vectors_from_the_lists_keep_their_shape_for_an_empty_store():
    empty = Vectors([], np.zeros(0, dtype=np.int64), np.zeros((0, 384), dtype=np.float32))
    assert len(empty.search_scores(np.ones(384, dtype=np.float32) / np.sqrt(384))) == 0
