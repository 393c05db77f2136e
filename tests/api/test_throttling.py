"""Rate limits per client address, counted in the shared database cache: 429 + Retry-After."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection, connections

from incidentlib.db_router import cache_alias
from tests.conftest import set_throttle_rates

from .conftest import assert_matches_schema

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_limits(settings):
    set_throttle_rates(settings, {"api": "3/minute", "api-heavy": "2/minute"})
    cache.clear()


def seconds(wait: int) -> str:
    return f"{wait} second{'s' if wait != 1 else ''}"


def get(client, url, address="10.0.0.1"):
    return client.get(url, REMOTE_ADDR=address)


def test_the_request_over_the_limit_gets_429_with_retry_after(client, small_limits):
    assert [get(client, "/api/stats").status_code for _ in range(3)] == [200, 200, 200]
    response = get(client, "/api/stats")
    assert response.status_code == 429
    assert_matches_schema(response, "/api/stats")
    assert 0 < int(response["Retry-After"]) <= 60
    wait = int(response["Retry-After"])
    # Which limit and when to retry, in the words of MCP's 429 (it said only "Request was
    # throttled. Expected available in 42 seconds.", naming neither the limit nor its rate).
    assert response.json() == {
        "type": "about:blank",
        "title": "Too Many Requests",
        "status": 429,
        "detail": "Rate limit: at most 3/minute for API requests from one client address, counted with "
        f"this address's MCP calls; try again in {seconds(wait)}.",
        "instance": "/api/stats",
        "scope": "api",
        "rate": "3/minute",
        "retry_after": wait,
    }
    assert response["Cache-Control"] == "no-store"


def test_every_endpoint_shares_the_count_and_conditional_requests_count_too(client, small_limits):
    etag = get(client, "/api/cases/")["ETag"]
    assert get(client, "/api/topics/").status_code == 200
    assert (
        client.get("/api/cases/", headers={"If-None-Match": etag}, REMOTE_ADDR="10.0.0.1").status_code == 304
    )
    assert get(client, "/api/vocab/").status_code == 429


def test_other_addresses_have_their_own_count(client, small_limits):
    for _ in range(3):
        get(client, "/api/stats", "10.0.0.2")
    assert get(client, "/api/stats", "10.0.0.2").status_code == 429
    assert get(client, "/api/stats", "10.0.0.3").status_code == 200


def test_a_forged_forwarded_for_header_does_not_reset_the_count(client, small_limits):
    for n in range(3):
        client.get("/api/stats", REMOTE_ADDR="10.0.0.4", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")
    response = client.get("/api/stats", REMOTE_ADDR="10.0.0.4", HTTP_X_FORWARDED_FOR="192.0.2.9")
    assert response.status_code == 429


def test_match_and_export_have_their_own_lower_limit(client, small_limits):
    def match():
        return client.post(
            "/api/match",
            data=json.dumps({"text": "NCCL timeout"}),
            content_type="application/json",
            REMOTE_ADDR="10.0.0.5",
        )

    assert [match().status_code, match().status_code] == [200, 200]
    refused = match()
    wait = int(refused["Retry-After"])
    assert refused.status_code == 429
    assert_matches_schema(refused, "/api/match", "post")
    assert {key: refused.json()[key] for key in ("detail", "scope", "rate", "retry_after")} == {
        "detail": "Rate limit: at most 2/minute for log matching, triage and export (POST /api/match, "
        "POST /api/triage, GET /api/export) from one client address, counted with this address's MCP "
        f"match_log and triage calls and /match/ page posts; try again in {seconds(wait)}.",
        "scope": "api-heavy",
        "rate": "2/minute",
        "retry_after": wait,
    }
    assert get(client, "/api/export", "10.0.0.5").status_code == 429
    assert get(client, "/api/stats", "10.0.0.5").status_code == 200


def test_counts_live_in_the_database_cache_that_every_worker_shares(client, small_limits):
    get(client, "/api/stats", "10.0.0.6")
    assert cache.get("throttle_api_10.0.0.6") is not None
    with connections[cache_alias()].cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM incidentlib_cache WHERE cache_key LIKE '%10.0.0.6'")
        assert cursor.fetchone()[0] == 1


def test_on_sqlite_the_cache_has_a_file_of_its_own_and_the_case_file_no_cache_table(client, small_limits):
    get(client, "/api/stats", "10.0.0.7")
    if connection.vendor == "sqlite":
        assert cache_alias() == "cache"
        assert "incidentlib_cache" not in connection.introspection.table_names()
    else:  # PostgreSQL locks rows, not the database: the cache stays a table of it.
        assert cache_alias() == "default" and list(settings.DATABASES) == ["default"]
