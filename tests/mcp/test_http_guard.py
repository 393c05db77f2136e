"""What /mcp answers before a message reaches the SDK: Host and Origin (one allow-list with
Django), methods, CORS, body size, the JSON-RPC envelope; and `/mcp/` served as `/mcp`."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.core.asgi import get_asgi_application
from django.test import override_settings
from starlette.testclient import TestClient

from mcp_server.http_app import build_asgi_app
from mcp_server.http_guard import MAX_BODY_BYTES, host_allowed, origin_allowed

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
ALLOWED = ["kb.example.org", ".example.net", "testserver"]
INSPECTOR = "https://inspector.example.com"


@pytest.fixture
def http() -> Iterator[TestClient]:
    with override_settings(ALLOWED_HOSTS=ALLOWED, MCP_ALLOWED_ORIGINS=[INSPECTOR]):
        with TestClient(build_asgi_app(get_asgi_application())) as client:
            yield client


def rpc_error(response) -> tuple[int, int, str]:
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    return response.status_code, body["error"]["code"], body["error"]["message"]


@override_settings(ALLOWED_HOSTS=ALLOWED, MCP_ALLOWED_ORIGINS=[INSPECTOR])
def test_hosts_compare_as_django_compares_them():
    for host in (
        "kb.example.org",
        "KB.Example.Org",
        "kb.example.org.",
        "kb.example.org:8443",
        "a.example.net",
    ):
        assert host_allowed(host), host
    for host in ("evil.example", "kb.example.org.evil.example", "", "example.org"):
        assert not host_allowed(host), host
    assert origin_allowed("https://KB.example.org:8443")
    assert origin_allowed(INSPECTOR) and origin_allowed(INSPECTOR.upper())
    assert not origin_allowed("http://evil.example")
    assert not origin_allowed("null")


@pytest.mark.parametrize("host", ["KB.Example.Org", "kb.example.org."])
def test_a_host_in_another_case_or_with_a_trailing_dot_is_served(http, host):
    response = http.post("/mcp", json=PING, headers={**HEADERS, "Host": host})
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_the_trailing_slash_is_the_same_endpoint(http):
    response = http.post("/mcp/", json=PING, headers=HEADERS)
    assert response.status_code == 200 and response.json()["id"] == 7


def test_foreign_hosts_and_origins_are_refused_with_json_rpc_errors(http):
    response = http.post("/mcp", json=PING, headers={**HEADERS, "Host": "evil.example"})
    assert rpc_error(response) == (421, -32600, "Invalid Host header: not one of this site's hosts")
    response = http.post("/mcp", json=PING, headers={**HEADERS, "Origin": "http://evil.example"})
    assert rpc_error(response) == (403, -32600, "Invalid Origin header: this origin may not call /mcp")


def test_get_and_delete_are_405_in_stateless_mode(http):
    for method in ("GET", "DELETE"):
        response = http.request(method, "/mcp", headers={"Accept": "text/event-stream"})
        status, code, message = rpc_error(response)
        assert (status, code) == (405, -32600)
        assert message.startswith("This server is stateless: POST JSON-RPC messages")
        assert response.headers["allow"] == "POST, OPTIONS"


def test_cors_preflight_for_listed_origins_only(http):
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, mcp-protocol-version",
    }
    response = http.options("/mcp", headers={**preflight, "Origin": INSPECTOR})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == INSPECTOR
    assert "POST" in response.headers["access-control-allow-methods"]
    assert "mcp-protocol-version" in response.headers["access-control-allow-headers"].lower()
    posted = http.post("/mcp", json=PING, headers={**HEADERS, "Origin": INSPECTOR})
    assert posted.status_code == 200 and posted.headers["access-control-allow-origin"] == INSPECTOR
    refused = http.options("/mcp", headers={**preflight, "Origin": "http://evil.example"})
    assert refused.status_code >= 400
    assert "access-control-allow-origin" not in refused.headers


def test_a_body_that_is_not_json_by_its_content_type_is_415(http):
    response = http.post("/mcp", content="ping", headers={**HEADERS, "Content-Type": "text/plain"})
    assert rpc_error(response) == (415, -32600, "Content-Type must be application/json")


def test_a_body_over_the_limit_is_413_with_a_json_rpc_error(http):
    big = json.dumps({**PING, "params": {"pad": "x" * (MAX_BODY_BYTES + 10)}})
    response = http.post("/mcp", content=big, headers=HEADERS)
    assert rpc_error(response) == (413, -32600, f"Request body too large: at most {MAX_BODY_BYTES} bytes")


@pytest.mark.parametrize(
    ("body", "status", "code", "message", "request_id"),
    [
        ("{not json", 400, -32700, "Parse error: the body is not JSON", None),
        (
            json.dumps([PING, PING]),
            400,
            -32600,
            "Batch requests are not supported (removed in MCP 2025-06-18): send one message per request",
            None,
        ),
        (json.dumps({"hello": 1}), 400, -32600, '"jsonrpc" must be "2.0" (got null)', None),
        (json.dumps({**PING, "jsonrpc": "1.0"}), 400, -32600, '"jsonrpc" must be "2.0" (got "1.0")', 7),
        (
            json.dumps({**PING, "id": None}),
            400,
            -32600,
            '"id" must be a string or an integer (null is not allowed in MCP)',
            None,
        ),
        (json.dumps({"jsonrpc": "2.0", "id": 3}), 400, -32600, 'A JSON-RPC request needs a "method"', 3),
        (json.dumps("ping"), 400, -32600, "A JSON-RPC message must be a JSON object", None),
        (
            json.dumps({**PING, "method": "tools/call", "params": "get_incident"}),
            400,
            -32600,
            '"params" must be an object of named parameters (got a string)',
            7,
        ),
        (
            json.dumps({**PING, "params": ["IL-0428"]}),
            400,
            -32600,
            '"params" must be an object of named parameters (got an array)',
            7,
        ),
    ],
)
def test_malformed_envelopes_get_json_rpc_errors(http, body, status, code, message, request_id):
    response = http.post("/mcp", content=body, headers=HEADERS)
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message},
    }
    assert response.status_code == status
