"""Every endpoint runs a fixed number of queries whatever the number of cases.

Counts are taken with throttling off (tests/api/conftest.py); the throttle's own cost is
pinned at the end. "Version" below is the 2 queries of `selectors.store_version()` that give
ETag and Last-Modified (newest case modification and count; the vocabulary digest).
"""

from __future__ import annotations

import datetime
import json
from contextlib import nullcontext

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from incidentlib.db_router import cache_alias
from incidents.models import Case
from incidents.search import search_cases, similar_cases
from incidents.selectors import CaseFilters
from incidents.services import import_case_files
from tests.conftest import set_throttle_rates
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

# case_by_id: the case with its root cause, then term links, sources, scale tables, their
# columns and rows, related links.
CASE = 7


def measured(call) -> int:
    with CaptureQueriesContext(connection) as context:
        call()
    return len(context.captured_queries)


# The search module is being replaced (ranked full text, stored neighbours) and pins its own
# counts; here its cost for the call a URL makes is measured, and what the API adds is pinned.
def search(**kwargs):
    kwargs.setdefault("limit", 20)
    return lambda: measured(lambda: search_cases(**kwargs))


def similar(case_id: str, limit: int):
    def cost() -> int:
        case = Case.objects.with_document().get(id=case_id)
        return measured(lambda: similar_cases(case, limit=limit))

    return cost


def filters(include=None, exclude=None, **dates):
    return CaseFilters(include=include or {}, exclude=exclude or {}, **dates)


# URL -> (queries the API itself runs, the cost of the search call it makes, if any).
COUNTS = {
    "/api/cases/": (2, search()),
    "/api/cases/?page=2&ordering=published": (2, search(sort="oldest", offset=20)),
    "/api/cases/?q=NCCL+timeout": (2, search(query="NCCL timeout")),
    # Checking term values: the vocabulary (one query for every term facet).
    # (`exclude_topic=inference`, a former topic, excludes the workload.)
    "/api/cases/?symptom=nccl-timeout&exclude_topic=inference": (
        2 + 1,
        search(filters=filters({"symptom": ("nccl-timeout",)}, {"workload": ("inference",)})),
    ),
    # Organizations are a term facet since issue 13: read in that same vocabulary query (the
    # distinct-organizations query it used to cost is gone).
    "/api/cases/?symptom=nccl-timeout&organization=BigScience": (
        2 + 1,
        search(filters=filters({"symptom": ("nccl-timeout",), "organization": ("bigscience",)})),
    ),
    # Scale bands and numeric bounds are read without the database.
    "/api/cases/?scale=10000-plus&min_accelerators=1024&max_nodes=2500": (
        2,
        search(
            filters=CaseFilters(
                include={"scale": ("10000-plus",)}, bounds={"min_accelerators": 1024, "max_nodes": 2500}
            )
        ),
    ),
    # A workload is a term facet: the vocabulary, one query.
    "/api/cases/?workload=training&scale=under-64": (
        2 + 1,
        search(filters=filters({"workload": ("training",), "scale": ("under-64",)})),
    ),
    "/api/cases/?year=2024&published_after=2024-03-01": (
        2,
        search(filters=filters({"year": ("2024",)}, published_after=datetime.date(2024, 3, 1))),
    ),
    # The case's own `modified` first (its ETag carries the case's version, which a write's
    # If-Match checks alone), then the store version and the case.
    "/api/cases/IL-0428": (1 + 2 + CASE, None),
    "/api/cases/IL-0428/similar": (2 + CASE, similar("IL-0428", 5)),
    # The topics with counts.
    "/api/topics/": (2 + 1, None),
    # topic_overview: topic, count, 3 frequency lists, latest cases and their term links.
    "/api/topics/interconnect": (2 + 7, None),
    # Every term with its count.
    "/api/vocab/": (2 + 1, None),
    "/api/vocab/component": (2 + 1, None),
    # case_stats: total, years, 3 term counts, accelerators, accelerator counts, resolve times.
    "/api/stats": (2 + 8, None),
    # One page of the feed.
    "/api/changes?limit=10": (2 + 1, None),
    # Another spelling of an id: the case's own version misses (so no ETag and no store
    # version), one case-insensitive id lookup, then the redirect.
    "/api/cases/il-0428": (1 + 1, None),
    # The version misses, the id misses, the case-insensitive lookup misses, every visible id
    # (to name the closest).
    "/api/cases/IL-9999": (1 + 1 + 1 + 1, None),
    # Refused before any read.
    "/api/cases/?unknown=1": (0, None),
    "/api/cases/not-an-id": (0, None),
}


def expected_queries(url: str) -> int:
    own, search_cost = COUNTS[url]
    return own + (search_cost() if search_cost else 0)


@pytest.fixture
def sixty_more_cases(tmp_path):
    documents = [synthetic_case(n, related=["IL-0428"]) for n in range(60)]
    import_case_files(paths=write_cases(tmp_path, documents))


@pytest.mark.parametrize("url", COUNTS)
def test_query_count_is_fixed(client, django_assert_num_queries, url):
    with django_assert_num_queries(expected_queries(url)):
        client.get(url)


def test_query_counts_do_not_grow_with_the_number_of_cases(client, django_assert_num_queries, tmp_path):
    before = {url: expected_queries(url) for url in COUNTS}
    import_case_files(
        paths=write_cases(tmp_path, [synthetic_case(n, related=["IL-0428"]) for n in range(60)])
    )
    for url in COUNTS:  # one import of sixty cases for every URL
        assert expected_queries(url) == before[url], url
        with django_assert_num_queries(before[url]):
            client.get(url)


def test_export_reads_one_batch_at_a_time(client, django_assert_num_queries, sixty_more_cases, monkeypatch):
    from incidents import exporting

    monkeypatch.setattr(exporting, "EXPORT_BATCH_SIZE", 50)
    published = client.get("/api/stats").json()["total"]
    batches = -(-published // 50)
    # Version, then per batch the cases and 6 prefetches, then the empty batch that ends it.
    with django_assert_num_queries(2 + 7 * batches + 1):
        response = client.get("/api/export")
        assert len(b"".join(response.streaming_content).splitlines()) == published


def test_match_costs_a_fixed_number_of_queries(client, django_assert_num_queries, sixty_more_cases):
    # match_log (pinned in tests/search/test_query_counts.py): terms with case counts, the
    # number of published cases, the token look-up in the full-text index, the (case, term)
    # pairs of the found terms, the log's rare words, the candidates' job-kind topics, the
    # candidates' passage vectors, the hits' cases, their term links. Four lines: a log of
    # at most three is also searched line by line (`log_as_words`, pinned there too).
    log = "NCCL timeout\nXid 79\niteration 1200 | lm loss 2.31\niteration 1201 | lm loss 2.30"
    with django_assert_num_queries(9):
        client.post("/api/match", data=json.dumps({"text": log}), content_type="application/json")


def test_a_conditional_request_for_one_case_checks_that_it_exists(client, django_assert_num_queries):
    etag = client.get("/api/cases/IL-0428")["ETag"]
    # IL-0428's own version (which also says that it exists), then the store version: a 304
    # reads no case.
    with django_assert_num_queries(1 + 2):
        assert client.get("/api/cases/IL-0428", headers={"If-None-Match": etag}).status_code == 304


def test_throttling_adds_its_cache_round_trips(client, settings):
    set_throttle_rates(settings, {"api": "1000/minute", "api-heavy": None})
    client.get("/api/topics/")
    # The view: the version (2), the topics. The database cache: read the history, count
    # entries (culling), then inside a savepoint (a transaction outside tests) look the key
    # up and update it. On SQLite the cache has its own file and connection, so the case
    # database sees only the view's queries; on PostgreSQL it is a table of the case database.
    view, throttle = 2 + 1, 1 + 1 + 4
    with (
        CaptureQueriesContext(connection) as case_database,
        CaptureQueriesContext(connections["cache"]) if cache_alias() == "cache" else nullcontext() as cache,
    ):
        client.get("/api/topics/")
    if cache is None:
        assert len(case_database) == view + throttle
    else:
        assert (len(case_database), len(cache)) == (view, throttle)
