"""JSON can spell a lone surrogate (`"\\ud800"`), which Python keeps in a `str` and UTF-8
cannot encode. Whatever a problem document or an MCP error echoes (a body key, a
parameter, a value) is written with such a code point as its escape, so the answer is
the 400 or tool error it should be: `POST /api/affected` with `{"\\ud800": "1"}` was a
500 when DRF's renderer met the key it echoed."""

from __future__ import annotations

import json

import pytest
from django.core.asgi import get_asgi_application
from django.test import override_settings
from starlette.testclient import TestClient

from api.errors import problem_body
from incidents.encodable import encodable
from mcp_server.http_app import build_asgi_app
from mcp_server.http_guard import rpc_error
from mcp_server.toolkit import error_result

SURROGATE_KEY = b'{"\\ud800": "1"}'
ESCAPED = "\\ud800"  # the six characters a reader sees


def test_encodable_escapes_lone_surrogates_at_any_depth_and_keeps_the_rest():
    assert encodable("nccl\ud800x") == "nccl\\ud800x"
    assert encodable({"\udc00": ["a\ud800", 1, None], "ok": "réseau 🔥"}) == {
        "\\udc00": ["a\\ud800", 1, None],
        "ok": "réseau 🔥",
    }
    text = "réseau"
    assert encodable(text) is text  # encodable text is not copied


def test_problem_documents_tool_errors_and_rpc_errors_can_always_be_encoded():
    body = problem_body(400, None, "\ud800: unknown component", [{"parameter": "\ud800", "value": "\ud800"}])
    assert body == {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "detail": "\\ud800: unknown component",
        "errors": [{"parameter": "\\ud800", "value": "\\ud800"}],
    }
    assert error_result("Unknown argument \ud800").content[0].text == "Unknown argument \\ud800"
    assert json.loads(rpc_error(400, -32600, "bad \ud800", "id\udc00").body) == {
        "jsonrpc": "2.0",
        "id": "id\\udc00",
        "error": {"code": -32600, "message": "bad \\ud800"},
    }


@pytest.mark.django_db
def test_a_lone_surrogate_key_to_api_affected_is_a_400_showing_its_escape(client):
    response = client.generic("POST", "/api/affected", SURROGATE_KEY, content_type="application/json")
    assert (response.status_code, response["Content-Type"]) == (400, "application/problem+json")
    assert response.json() == {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "detail": f"{ESCAPED}: unknown component",
        "instance": "/api/affected",
        "errors": [{"parameter": ESCAPED, "detail": "unknown component", "value": ESCAPED}],
    }
    value = client.generic(
        "POST", "/api/affected", b'{"NCCL": "2.19\\ud800"}', content_type="application/json"
    ).json()
    assert value["errors"] == [
        {
            "parameter": "NCCL",
            "detail": "not a version that can be compared (e.g. 2.18.1, 535.104.05)",
            "value": f"2.19{ESCAPED}",
        }
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/api/affected", "/api/match", "/api/triage", "/api/proposals/", "/api/cases/IL-0428/status"]
)
def test_no_json_endpoint_fails_to_encode_what_it_echoes(client, no_rate_limits, path):
    for body in (SURROGATE_KEY, b'{"text": "\\ud800", "\\udc00": {"\\ud800": ["\\udfff"]}}'):
        response = client.generic("POST", path, body, content_type="application/json")
        assert response.status_code < 500, (path, body, response.status_code)
        response.content.decode("utf-8")  # encodable, whatever it echoes


@pytest.mark.django_db
def test_a_lone_surrogate_key_over_mcp_http_is_a_parse_error_not_a_crash():
    # The SDK's client cannot send such a key; a raw JSON-RPC body can, and the transport's
    # strict JSON reader refuses it before any tool runs (the tool errors that could echo
    # one are covered by error_result above).
    body = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "am_i_affected",'
        b' "arguments": {"versions": {"\\ud800": "1", "NCCL": "2.19.3"}}}}'
    )
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with override_settings(ALLOWED_HOSTS=["testserver"], MCP_ALLOWED_ORIGINS=[]):
        with TestClient(build_asgi_app(get_asgi_application())) as http:
            response = http.post("/mcp", content=body, headers=headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32700 and error["message"].startswith("Parse error: ")
