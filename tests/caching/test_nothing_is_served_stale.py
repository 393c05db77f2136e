"""With the store cache on, what a write changes is never served from the cache: an edited
case, a new import's vocabulary counts, the ETag that follows them. And between writes the
cached reads really come from the cache (no query)."""

from __future__ import annotations

import copy

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents import selectors, store_cache
from incidents.services import import_case_files, save_case_document
from tests.conftest import load_fixture
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db


def nccl_timeout_count(client) -> int:
    body = client.get("/api/vocab/").json()
    return next(t["case_count"] for t in body["symptom"] if t["slug"] == "nccl-timeout")


def test_an_edited_case_is_served_as_edited_at_once(client, store_cache_on):
    first = client.get("/api/cases/IL-0428")
    again = client.get("/api/cases/IL-0428")  # the store version now comes from the cache
    assert again["ETag"] == first["ETag"]
    document = copy.deepcopy(load_fixture("IL-0428"))
    document["title"] = "Hangs on 384 A100 GPUs once inter-node traffic grew (edited)"
    assert save_case_document(document, reason="test edit").changed

    edited = client.get("/api/cases/IL-0428")
    assert edited.json()["title"] == document["title"]
    assert edited["ETag"] != first["ETag"]
    # A client holding the old ETag gets the new body, not 304.
    conditional = client.get("/api/cases/IL-0428", HTTP_IF_NONE_MATCH=first["ETag"])
    assert conditional.status_code == 200
    assert conditional.json()["title"] == document["title"]


def test_an_import_moves_the_vocabulary_counts_at_once(client, store_cache_on, tmp_path):
    before = nccl_timeout_count(client)
    assert nccl_timeout_count(client) == before  # served from the cache this time
    version = selectors.store_version()
    paths = write_cases(
        tmp_path,
        [
            synthetic_case(1, symptoms={"description": "Watchdog fired.", "tags": ["NCCL timeout"]}),
            synthetic_case(2, symptoms={"description": "Watchdog fired.", "tags": ["NCCL timeout"]}),
        ],
    )
    import_case_files(paths=paths)

    assert nccl_timeout_count(client) == before + 2
    assert selectors.store_version().case_count == version.case_count + 2


def test_between_writes_the_cached_reads_run_no_query(store_cache_on, settings):
    selectors.store_version()
    selectors.vocabulary()
    with CaptureQueriesContext(connection) as captured:
        version = selectors.store_version()
        terms = selectors.vocabulary()
    assert captured.captured_queries == []
    # ... and they are what the database gives.
    settings.STORE_CACHE = False
    assert version == selectors.store_version()
    assert [(t.facet, t.slug, t.case_count) for t in terms] == [
        (t.facet, t.slug, t.case_count) for t in selectors.vocabulary()
    ]


def test_a_write_replaces_the_generation_again_when_it_commits(
    store_cache_on, django_capture_on_commit_callbacks
):
    before = store_cache.generation()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        store_cache.changed()
        during = store_cache.generation()
    after = store_cache.generation()
    # Once at once (the writer reads fresh values), once on commit (values another process
    # computed from the data not yet committed are never read).
    assert len(callbacks) == 1
    assert len({before, during, after}) == 3


def test_with_the_store_cache_off_nothing_is_cached(settings):
    settings.STORE_CACHE = False
    with CaptureQueriesContext(connection) as captured:
        selectors.store_version()
    assert len(captured.captured_queries) == 2


def browse_counts(client) -> tuple[int, int, int]:
    """The case list's total and its `nccl-timeout` symptom count (browsing every case), and
    the stats' total."""
    body = client.get("/api/cases/").json()
    symptom = next(f["count"] for f in body["facets"]["symptom"] if f["value"] == "nccl-timeout")
    return body["count"], symptom, client.get("/api/stats").json()["total"]


def test_an_import_moves_the_browse_counts_and_the_stats_at_once(client, store_cache_on, tmp_path):
    # Browsing every case, the total and the facet counts are counted once per store
    # generation, as are the stats: an import must show in the next answer, not a stale one.
    total, symptom, stats_total = browse_counts(client)
    with CaptureQueriesContext(connection) as captured:
        assert browse_counts(client) == (total, symptom, stats_total)
    # Served from the cache the second time: no count over every case, no facet query.
    assert not [q for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]
    paths = write_cases(
        tmp_path,
        [
            synthetic_case(n, symptoms={"description": "Watchdog fired.", "tags": ["NCCL timeout"]})
            for n in (3, 4)
        ],
    )
    import_case_files(paths=paths)

    assert browse_counts(client) == (total + 2, symptom + 2, stats_total + 2)
