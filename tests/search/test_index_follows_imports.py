"""The full-text index follows the cases: import, re-import, change, delete."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import search_cases
from incidents.search.backends import get_backend
from incidents.search.index import reindex_cases, sync_index
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def ids(query: str) -> set[str]:
    return {h.case.id for h in search_cases(query=query, limit=100).hits}


def test_every_fixture_case_is_indexed():
    assert get_backend().indexed_ids() >= set(Case.objects.values_list("id", flat=True))


def test_an_imported_case_is_found_at_once(import_synthetic):
    import_synthetic(synthetic_case(20, title="Quokka controller lost its leader"))
    assert ids("quokka") == {"IL-900020"}


def test_replacing_a_case_replaces_its_index_row(import_synthetic):
    import_synthetic(synthetic_case(21, title="Axolotl scheduler overload"))
    import_synthetic(synthetic_case(21, title="Narwhal scheduler overload"))
    assert ids("axolotl") == set()
    assert ids("narwhal") == {"IL-900021"}


def test_unpublished_cases_are_not_found(import_synthetic):
    import_synthetic(synthetic_case(22, title="Pangolin draft", status="draft"))
    assert ids("pangolin") == set()


def test_a_deleted_case_leaves_the_index():
    from incidents.services import delete_cases

    assert delete_cases(["IL-0459"]) == 1
    assert "IL-0459" not in get_backend().indexed_ids()
    assert ids("serialize-image-pulls") == set()


def test_sync_drops_orphans_and_adds_missing_rows():
    backend = get_backend()
    backend.delete(["IL-0428"])
    reindex_cases(["IL-0428"])
    backend.delete(["IL-0428"])
    assert "IL-0428" not in backend.indexed_ids()
    sync_index()
    assert "IL-0428" in backend.indexed_ids()
    assert "IL-0428" in ids("CUDA_LAUNCH_BLOCKING")


def test_sync_retires_cached_reads_only_when_it_changes_the_index(store_cache_on):
    from incidents import store_cache

    computed: list[int] = []

    def count() -> int:
        computed.append(1)
        return len(get_backend().indexed_ids())

    every = store_cache.cached("indexed-count", count)
    sync_index()  # nothing to do: the count stays cached
    assert store_cache.cached("indexed-count", count) == every and len(computed) == 1
    get_backend().delete(["IL-0428"])
    sync_index()  # writes IL-0428's row back: what was read before is stale
    assert store_cache.cached("indexed-count", count) == every and len(computed) == 2
    reindex_cases(["IL-0428"])
    Case.objects.filter(id="IL-0428").delete()  # its row is left behind, an orphan
    sync_index()
    assert store_cache.cached("indexed-count", count) == every - 1 and len(computed) == 3


def test_a_failed_import_leaves_the_index_untouched(tmp_path):
    from incidents.problems import CaseImportError
    from incidents.services import import_case_files
    from tests.conftest import VOCAB_FILE
    from tests.factories import write_cases

    good = synthetic_case(23, title="Wombat fabric failure")
    bad = synthetic_case(24, title="Broken", related=["IL-999999"])
    write_cases(tmp_path, [good, bad])
    with pytest.raises(CaseImportError):
        import_case_files(paths=[tmp_path], vocab_paths=[VOCAB_FILE])
    assert ids("wombat") == set()


def test_the_full_rebuild_reads_each_case_once_and_restores_index_and_lists(monkeypatch):
    from django.core.management import call_command

    from incidents.search import profiles, similar_cases
    from incidents.search.models import CaseNeighbour
    from incidents.search.text import IndexColumns

    def lists() -> dict[str, list[tuple[str, float]]]:
        return {
            case.id: [(s.case.id, s.score) for s in similar_cases(case, limit=10)]
            for case in Case.objects.published().filter(id__in=["IL-0428", "IL-0463", "IL-0464"])
        }

    before = lists()
    backend = get_backend()
    backend.write([("IL-999998", IndexColumns("Orphan row", "", "", ""))])
    backend.delete(["IL-0428"])
    CaseNeighbour.objects.all().delete()

    def no_second_read(*args, **kwargs):
        raise AssertionError("the profiles read the case texts a second time")

    monkeypatch.setattr(profiles, "cases_for_index", no_second_read)
    call_command("rebuild_search")
    assert backend.indexed_ids() == set(Case.objects.values_list("id", flat=True))
    assert "IL-0428" in ids("CUDA_LAUNCH_BLOCKING")
    assert lists() == before
