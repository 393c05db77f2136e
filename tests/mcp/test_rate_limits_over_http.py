"""MCP over HTTP counts against the API's per-client rates, in the same counts: heavy tools
(match_log, triage) against "api-heavy", the other reads against "api"; over the rate, 429
with Retry-After and a JSON-RPC error saying the limit and when to retry.

Transactional: the count is kept by the guard in a worker thread, with a connection of its
own, so the API requests of the same test must commit theirs for it to see them (and on
SQLite a test transaction holding the cache table would lock that thread out)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.core.asgi import get_asgi_application
from django.core.cache import cache
from django.test import override_settings
from starlette.testclient import TestClient

from mcp_server.http_app import build_asgi_app
from tests.conftest import set_throttle_rates

pytestmark = pytest.mark.django_db(transaction=True)

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
LOG = "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."
ADDRESS = "10.9.0.1"


@pytest.fixture
def small_limits(settings) -> None:
    set_throttle_rates(settings, {"api": "3/minute", "api-heavy": "2/minute"})
    cache.clear()


def client_at(address: str) -> TestClient:
    return TestClient(build_asgi_app(get_asgi_application()), client=(address, 50000))


@pytest.fixture
def http(small_limits) -> Iterator[TestClient]:
    with override_settings(ALLOWED_HOSTS=["testserver"], MCP_ALLOWED_ORIGINS=[]):
        with client_at(ADDRESS) as client:
            yield client


def call(http: TestClient, name: str, arguments: dict, request_id: int = 1):
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return http.post("/mcp", content=json.dumps(body), headers=HEADERS)


def answered(response) -> bool:
    return response.status_code == 200 and response.json()["result"]["isError"] is False


def test_match_log_beyond_the_heavy_rate_gets_429_with_retry_after_and_a_json_rpc_error(http):
    assert [answered(call(http, "match_log", {"text": LOG}, n)) for n in (1, 2)] == [True, True]
    response = call(http, "match_log", {"text": LOG}, 3)
    assert response.status_code == 429
    wait = int(response.headers["Retry-After"])
    assert 0 < wait <= 60
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {
            "code": -32000,
            "message": "Rate limit: at most 2/minute for log matching and triage (match_log, triage) "
            "from one client address, counted with this address's API requests; "
            f"try again in {wait} second{'s' if wait != 1 else ''}.",
            "data": {"scope": "api-heavy", "rate": "2/minute", "retry_after": wait},
        },
    }


def test_triage_counts_against_the_heavy_rate_and_light_tools_against_the_api_rate(http):
    call(http, "match_log", {"text": LOG})
    call(http, "triage", {"text": LOG})
    assert call(http, "triage", {"text": LOG}).status_code == 429
    # The heavy calls above did not spend the "api" rate: three light calls, the fourth refused.
    statuses = [call(http, "get_incident", {"id": "IL-0428"}, n).status_code for n in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert call(http, "search_incidents", {"query": "nccl"}).json()["error"]["data"]["scope"] == "api"


def test_an_api_heavy_request_and_an_mcp_heavy_call_share_one_count(http, client):
    def api_match():
        return client.post(
            "/api/match", data=json.dumps({"text": LOG}), content_type="application/json", REMOTE_ADDR=ADDRESS
        )

    assert api_match().status_code == 200
    assert answered(call(http, "match_log", {"text": LOG}))
    assert call(http, "match_log", {"text": LOG}).status_code == 429
    assert api_match().status_code == 429
    assert cache.get(f"throttle_api-heavy_{ADDRESS}") is not None


def test_a_different_client_address_is_not_limited(http):
    for n in range(2):
        call(http, "match_log", {"text": LOG}, n)
    assert call(http, "match_log", {"text": LOG}).status_code == 429
    with client_at("10.9.0.2") as other:
        assert answered(call(other, "match_log", {"text": LOG}))


def test_the_address_is_the_one_trusted_proxies_forwarded_as_in_the_api(http, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    forwarded = {**HEADERS, "X-Forwarded-For": "192.0.2.7"}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "match_log", "arguments": {"text": LOG}},
    }
    statuses = [http.post("/mcp", content=json.dumps(body), headers=forwarded).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert cache.get("throttle_api-heavy_192.0.2.7") is not None
    assert answered(call(http, "match_log", {"text": LOG}))  # the proxy's own address is another client


def test_connecting_and_listing_tools_are_not_counted(http):
    for n in range(5):
        assert (
            http.post(
                "/mcp", json={"jsonrpc": "2.0", "id": n, "method": "tools/list"}, headers=HEADERS
            ).status_code
            == 200
        )
        assert (
            http.post("/mcp", json={"jsonrpc": "2.0", "id": n, "method": "ping"}, headers=HEADERS).status_code
            == 200
        )
    assert [call(http, "get_incident", {"id": "IL-0428"}, n).status_code for n in range(4)] == [
        200,
        200,
        200,
        429,
    ]


def test_resource_reads_count_against_the_api_rate(http):
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "incident://IL-0428"}}
    statuses = [http.post("/mcp", json=read, headers=HEADERS).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
