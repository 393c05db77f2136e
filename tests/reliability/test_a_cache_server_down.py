"""With CACHE_URL naming a Redis that is down, reads are served from the database (the store
cache degrades), what cannot be (the API's rate counts, a write that must retire the cached
reads) is a 503 at every door, never a 500, and /healthz says the cache failed."""

from __future__ import annotations

import copy

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from incidents.models import Case
from incidents.servers_cache import SharedCacheUnreachable
from incidents.services import save_case_document
from mcp_server import tools
from tests.conftest import NO_RATE_LIMITS, load_fixture, set_throttle_rates

pytestmark = pytest.mark.django_db

# Nothing listens on port 1: connections are refused at once.
DOWN = {"BACKEND": "incidentlib.redis_cache.SharedPoolRedisCache", "LOCATION": "redis://127.0.0.1:1/0"}


@pytest.fixture
def cache_down(settings):
    settings.CACHES = {"default": DOWN}
    settings.STORE_CACHE = True


def test_pages_and_the_api_are_served_from_the_database(client, settings, cache_down):
    set_throttle_rates(settings, NO_RATE_LIMITS)
    page = client.get("/cases/IL-0428")
    assert page.status_code == 200
    assert Case.objects.get(pk="IL-0428").title in page.content.decode()
    api = client.get("/api/cases/IL-0428")
    assert api.status_code == 200
    assert api.json()["id"] == "IL-0428"


def test_the_mcp_tool_is_served_from_the_database(mcp, cache_down):
    assert mcp.ok("get_incident", id="IL-0428")["id"] == "IL-0428"


def test_api_rate_counts_that_cannot_be_kept_are_a_503_problem(client, cache_down):
    response = client.get("/api/cases/IL-0428")  # the default rates: counted in the cache
    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == "5"
    assert response.json()["detail"] == (
        "The site's shared cache is not answering right now. Try again in a few seconds."
    )


def test_a_write_that_cannot_retire_the_cached_reads_is_refused(cache_down):
    document = copy.deepcopy(load_fixture("IL-0428"))
    document["title"] = "Edited while the cache is down"
    with pytest.raises(SharedCacheUnreachable, match="CACHE_URL"):
        save_case_document(document, reason="test")
    assert Case.objects.get(pk="IL-0428").title != document["title"]


def test_healthz_says_the_cache_failed(client, cache_down):
    # A real client refused by a port nothing listens on, not a patched cache method: the
    # error class named is the one the Redis client raises.
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "databases": {"default": "ok"},
        "cache": "ConnectionError",
    }


def test_an_mcp_tool_meeting_a_cache_error_says_to_try_again(mcp, monkeypatch):
    def refuse(*args, **kwargs):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tools, "case_record", refuse)
    assert mcp.error("get_incident", id="IL-0428") == (
        "The site's shared cache did not answer; try again in a moment."
    )
