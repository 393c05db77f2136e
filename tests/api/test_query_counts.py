"""Every endpoint runs a fixed number of queries whatever the number of cases.

Counts are taken with throttling off (tests/api/conftest.py); the throttle's own cost is
pinned at the end. "Version" below is the 2 queries of `feeds.store_version()` that give
ETag and Last-Modified (newest case modification and count; the vocabulary digest).
"""

from __future__ import annotations

import json

import pytest

from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

from .conftest import set_throttle_rates

pytestmark = pytest.mark.django_db

# search_cases: the page of cases, their term links, the total, 7 facet counts.
SEARCH = 10
# case_by_id: the case with its root cause, then term links, sources, scale tables, their
# columns and rows, related links.
CASE = 7

COUNTS = {
    "/api/cases/": 2 + SEARCH,
    "/api/cases/?page=2&ordering=published": 2 + SEARCH,
    "/api/cases/?q=NCCL+timeout": 2 + SEARCH,
    # Checking term values: the vocabulary (one query for every term facet).
    "/api/cases/?symptom=nccl-timeout&exclude_topic=inference": 2 + 1 + SEARCH,
    # ... and the distinct organizations.
    "/api/cases/?symptom=nccl-timeout&organization=BigScience": 2 + 1 + 1 + SEARCH,
    "/api/cases/?year=2024&published_after=2024-03-01": 2 + SEARCH,
    "/api/cases/IL-0428": 2 + CASE,
    # similar_cases today: the other published cases and their term links.
    "/api/cases/IL-0428/similar": 2 + CASE + 2,
    # The topics with counts.
    "/api/topics/": 2 + 1,
    # topic_overview: topic, count, 3 frequency lists, latest cases and their term links.
    "/api/topics/training": 2 + 7,
    # Every term with its count.
    "/api/vocab/": 2 + 1,
    "/api/vocab/component": 2 + 1,
    # case_stats: total, years, 3 term counts, accelerators, accelerator counts, resolve times.
    "/api/stats": 2 + 8,
    # One page of the feed.
    "/api/changes?limit=10": 2 + 1,
    # The lower-case id misses, then the canonical id is looked up.
    "/api/cases/il-0428": 2 + 1 + 1,
    "/api/cases/IL-9999": 2 + 1 + 1,
    # Refused before any read.
    "/api/cases/?unknown=1": 0,
    "/api/cases/not-an-id": 0,
}


@pytest.fixture
def sixty_more_cases(tmp_path):
    documents = [synthetic_case(n, related=["IL-0428"]) for n in range(60)]
    import_case_files(paths=write_cases(tmp_path, documents))


@pytest.mark.parametrize("url", COUNTS)
def test_query_count_is_fixed(client, django_assert_num_queries, url):
    with django_assert_num_queries(COUNTS[url]):
        client.get(url)


def test_query_counts_do_not_grow_with_the_number_of_cases(
    client, django_assert_num_queries, sixty_more_cases
):
    for url, count in COUNTS.items():  # one import of sixty cases for every URL
        with django_assert_num_queries(count):
            client.get(url)


def test_export_reads_one_batch_at_a_time(client, django_assert_num_queries, sixty_more_cases,
                                          monkeypatch):
    from incidents import exporting

    monkeypatch.setattr(exporting, "EXPORT_BATCH_SIZE", 50)
    published = client.get("/api/stats").json()["total"]
    batches = -(-published // 50)
    # Version, then per batch the cases and 6 prefetches, then the empty batch that ends it.
    with django_assert_num_queries(2 + 7 * batches + 1):
        response = client.get("/api/export")
        assert len(b"".join(response.streaming_content).splitlines()) == published


def test_match_costs_a_fixed_number_of_queries(client, django_assert_num_queries,
                                               sixty_more_cases):
    # match_log today: the symptom terms, the matching cases, their term links.
    with django_assert_num_queries(3):
        client.post("/api/match", data=json.dumps({"text": "NCCL timeout\nXid 79"}),
                    content_type="application/json")


def test_a_conditional_request_for_one_case_checks_that_it_exists(client,
                                                                 django_assert_num_queries):
    etag = client.get("/api/cases/IL-0428")["ETag"]
    # Whether IL-0428 exists, then the version: a 304 reads no case.
    with django_assert_num_queries(1 + 2):
        assert client.get("/api/cases/IL-0428",
                          headers={"If-None-Match": etag}).status_code == 304


def test_throttling_adds_its_cache_round_trips(client, settings, django_assert_num_queries):
    set_throttle_rates(settings, {"api": "1000/minute", "api-heavy": None})
    client.get("/api/topics/")
    # The database cache: read the history, count entries (culling), then inside a savepoint
    # (a transaction outside tests) look the key up and update it.
    with django_assert_num_queries(2 + 1 + 6):
        client.get("/api/topics/")
