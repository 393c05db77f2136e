"""With the store cache on, what a write changes is never served from the cache: an edited
case, a new import's vocabulary counts, the ETag that follows them. And between writes the
cached reads really come from the cache (no query)."""

from __future__ import annotations

import copy

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from incidents import selectors, store_cache
from incidents.models import Case
from incidents.search import read_log
from incidents.services import change_status, import_case_files, save_case_document
from incidents.workflow import EDITOR, REVIEWER
from mcp_server import tools
from tests.conftest import load_fixture
from tests.editorial.conftest import make_user, token_for
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


FILTERED = "/api/cases/?symptom=nccl-timeout&component=pytorch"


def filtered_counts(client, url: str = FILTERED) -> tuple[int, int, list[str]]:
    """A filtered list's total, its `nccl-timeout` symptom count and its page's ids."""
    body = client.get(url).json()
    symptom = next(f["count"] for f in body["facets"]["symptom"] if f["value"] == "nccl-timeout")
    return body["count"], symptom, [c["id"] for c in body["results"]]


def test_an_import_moves_a_filtered_lists_counts_at_once(client, store_cache_on, tmp_path):
    # A filtered list's total and facet counts are kept per store generation and filter set.
    total, symptom, page = filtered_counts(client)
    assert total == symptom > 0
    with CaptureQueriesContext(connection) as captured:
        assert filtered_counts(client) == (total, symptom, page)
    assert not [q for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]
    # Other filters are counted apart, not served the first filter set's counts; those a
    # client could vary without end (excluded words, dates, bounds) are counted every time.
    for free in ("&q=-vllm", "&published_after=2020-01-01"):
        filtered_counts(client, FILTERED + free)
        with CaptureQueriesContext(connection) as captured:
            other_total, _, other_page = filtered_counts(client, FILTERED + free)
        assert [q for q in captured.captured_queries if "COUNT(" in q["sql"].upper()], free
        assert other_total <= total and set(other_page) <= set(page)
    other_total, _, other_page = filtered_counts(client, FILTERED + "&q=-vllm")
    assert other_total < total and set(other_page) < set(page)
    paths = write_cases(
        tmp_path,
        [pytorch_nccl_timeout(n) for n in (3, 4)],
    )
    import_case_files(paths=paths)

    after_total, after_symptom, after_page = filtered_counts(client)
    assert (after_total, after_symptom) == (total + 2, symptom + 2)
    assert {"IL-900003", "IL-900004"} <= set(after_page)


def pytorch_nccl_timeout(number: int) -> dict:
    document = synthetic_case(number, symptoms={"description": "Watchdog fired.", "tags": ["NCCL timeout"]})
    document["environment"]["components"] = ["PyTorch"]
    return document


def edit_title(case_id: str, title: str) -> None:
    document = copy.deepcopy(load_fixture(case_id))
    document["title"] = title
    assert save_case_document(document, reason="test edit").changed


def test_a_case_page_and_get_incident_are_served_as_edited_at_once(client, store_cache_on):
    old_title = load_fixture("IL-0428")["title"]
    for _ in range(2):  # the second answers come from the cache
        assert old_title in client.get("/cases/IL-0428").content.decode()
        assert tools.get_incident(id="IL-0428").model_dump()["title"] == old_title
    edit_title("IL-0428", "Hangs on 384 A100 GPUs (edited for the cache test)")

    page = client.get("/cases/IL-0428").content.decode()
    assert "Hangs on 384 A100 GPUs (edited for the cache test)" in page
    assert old_title not in page
    edited = tools.get_incident(id="IL-0428").model_dump()
    assert edited["title"] == "Hangs on 384 A100 GPUs (edited for the cache test)"


def test_between_writes_a_case_page_its_json_and_get_incident_run_no_query(client, store_cache_on):
    first_page = client.get("/cases/IL-0428")
    first_json = client.get("/api/cases/IL-0428").json()
    first_tool = tools.get_incident(id="IL-0428").model_dump()
    with CaptureQueriesContext(connection) as captured:
        page = client.get("/cases/IL-0428")
        body = client.get("/api/cases/IL-0428").json()
        tool = tools.get_incident(id="IL-0428").model_dump()
    assert captured.captured_queries == []
    # ... and the cached answers are the ones computed.
    assert page.content == first_page.content
    assert page["Link"] == first_page["Link"]
    assert body == first_json
    assert tool == first_tool


def test_a_page_asked_with_a_query_string_is_computed_every_time(client, store_cache_on):
    client.get("/cases/?q=nccl")
    with CaptureQueriesContext(connection) as captured:
        page = client.get("/cases/?q=nccl")
    assert page.status_code == 200
    assert captured.captured_queries  # searched again, not read from the cache


def test_a_retracted_case_keeps_its_notice_through_the_cache(client, store_cache_on):
    assert "notice" not in tools.get_incident(id="IL-0428").model_dump(exclude_none=True)
    client.get("/api/cases/IL-0428")
    reviewer = make_user("rita", REVIEWER)
    change_status("IL-0428", "retracted", user=reviewer, reason="Source withdrawn (cache test)")
    tool = tools.get_incident(id="IL-0428").model_dump()
    assert tool["notice"] == "Retracted: Source withdrawn (cache test)"
    body = client.get("/api/cases/IL-0428").json()
    assert body["status"] == "retracted"
    assert body["retraction_reason"] == "Source withdrawn (cache test)"


def similar_ids(client, case_id: str) -> list[str]:
    return [hit["id"] for hit in client.get(f"/api/cases/{case_id}/similar?limit=10").json()["results"]]


def test_a_new_look_alike_enters_the_similar_cases_at_once(client, store_cache_on, tmp_path):
    before = similar_ids(client, "IL-0428")
    with CaptureQueriesContext(connection) as captured:
        assert similar_ids(client, "IL-0428") == before
    assert captured.captured_queries == []  # the second answer came from the cache
    twin = copy.deepcopy(load_fixture("IL-0428"))
    twin.update(id="IL-900077", related=[])
    twin["sources"] = [{**twin["sources"][0], "url": "https://example.org/twin-of-il-0428"}]
    import_case_files(paths=write_cases(tmp_path, [twin]))

    after = similar_ids(client, "IL-0428")
    assert after[0] == "IL-900077"
    assert "IL-900077" not in before
    assert "IL-900077" in client.get("/cases/IL-0428").content.decode()


WATCHDOG_LOG = (
    "[rank3]:[E ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600072 "
    "milliseconds before timing out.\n"
)


def log_hits(settings, on: bool) -> list[tuple[str, float, str]]:
    settings.STORE_CACHE = on
    return [(h.case.id, h.score, h.confidence) for h in read_log(WATCHDOG_LOG).hits]


def test_log_matching_reads_the_same_with_the_store_cache_and_sees_an_import_at_once(
    settings, store_cache_on, tmp_path
):
    # With the cache on, the job kinds and passage vectors of every case come from this
    # process's copy (store_cache.local); the ranking must be the one computed from the database.
    cached = log_hits(settings, True)
    assert log_hits(settings, True) == cached
    assert cached == log_hits(settings, False)
    assert cached  # the watchdog line matches the NCCL timeout cases
    twin = copy.deepcopy(load_fixture(cached[0][0]))
    twin.update(id="IL-900078", related=[])
    twin["sources"] = [{**twin["sources"][0], "url": "https://example.org/twin-for-the-log-test"}]
    settings.STORE_CACHE = True  # as in production: the import starts a new generation
    import_case_files(paths=write_cases(tmp_path, [twin]))

    after = log_hits(settings, True)
    assert "IL-900078" in [case_id for case_id, _, _ in after]
    assert after == log_hits(settings, False)


def test_the_case_version_in_an_etag_follows_that_case_through_the_cache(client, store_cache_on):
    """A write's If-Match compares the case version GET's ETag carries (kept per generation):
    an edit of another case leaves it valid, an edit of the case itself makes it stale."""
    editor = APIClient()
    editor.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_user('edna', EDITOR))}")
    read = client.get("/api/cases/IL-0428")["ETag"]
    assert client.get("/api/cases/IL-0428")["ETag"] == read  # from the cache this time
    edit_title("IL-0429", "A look-alike case, edited for the cache test")
    assert client.get("/api/cases/IL-0428")["ETag"] != read  # the store moved
    first = editor.patch("/api/cases/IL-0428", {"lessons": ["First."]}, format="json", HTTP_IF_MATCH=read)
    assert first.status_code == 200, first.json()
    late = editor.patch("/api/cases/IL-0428", {"lessons": ["Late."]}, format="json", HTTP_IF_MATCH=read)
    assert late.status_code == 412
    fresh = client.get("/api/cases/IL-0428")["ETag"]
    again = editor.patch("/api/cases/IL-0428", {"lessons": ["Again."]}, format="json", HTTP_IF_MATCH=fresh)
    assert again.status_code == 200, again.json()
    assert Case.objects.get(id="IL-0428").lessons == ["Again."]
