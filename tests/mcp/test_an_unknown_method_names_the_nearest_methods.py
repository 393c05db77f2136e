"""A JSON-RPC request for a method the server does not serve (`tools/cal`, `initialise`) is
still -32601 "Method not found" with the method as `data`, as the specification and the SDK
have it, but the message names the nearest methods served (`protocol.SERVED_METHODS`), or
lists them when none is near. A walkthrough's typo got a bare "Method not found"."""

from __future__ import annotations

import json
import warnings
from typing import Any

import anyio
import pytest
from django.core.asgi import get_asgi_application
from django.test import override_settings
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from starlette.testclient import TestClient

from mcp_server.http_app import build_asgi_app
from mcp_server.protocol import SERVED_METHODS
from mcp_server.server import build_server

MODES = ["legacy", "2026-07-28"]
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def answer(mode: str, method: str, params: Any = None) -> types.ErrorData | None:
    """The error answering a request for `method` (None when it succeeds), sent as a client
    that does not check its own requests would send it."""
    request = types.PingRequest.model_construct(method=method, params=params)

    async def main() -> types.ErrorData | None:
        async with Client(build_server(), mode=mode) as client:
            try:
                await client.session.send_request(request, types.EmptyResult)
            except MCPError as error:
                return error.error
            except Exception:  # a result of another shape: the method was served
                return None
            return None

    with warnings.catch_warnings():  # pydantic notes the values it did not expect
        warnings.simplefilter("ignore", UserWarning)
        return anyio.run(main)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("method", "message"),
    [
        # Only the close ones (`spelling.closeness`): 'tools/list' and 'prompts/list' were
        # letters in common by difflib's ratio.
        ("tools/cal", "Method not found: 'tools/cal'. Did you mean 'tools/call'?"),
        ("tool/list", "Method not found: 'tool/list'. Did you mean 'tools/list'?"),
        ("prompt/get", "Method not found: 'prompt/get'. Did you mean 'prompts/get'?"),
        ("foo", "Method not found: 'foo'. Methods served: " + ", ".join(SERVED_METHODS) + "."),
    ],
)
def test_an_unknown_method_names_the_nearest_served_ones(db, mode, method, message):
    error = answer(mode, method, {})
    assert (error.code, error.message, error.data) == (types.METHOD_NOT_FOUND, message, method)


def test_over_http_too(db):
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        with TestClient(build_asgi_app(get_asgi_application())) as http:
            body = {"jsonrpc": "2.0", "id": 4, "method": "tools/cal", "params": {}}
            response = http.post("/mcp", content=json.dumps(body), headers=HEADERS)
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": {
            "code": -32601,
            "message": "Method not found: 'tools/cal'. Did you mean 'tools/call'?",
            "data": "tools/cal",
        },
    }


@pytest.mark.parametrize("method", SERVED_METHODS)
def test_every_method_suggested_is_served(db, method):
    # Under one protocol version at least (ping and initialize are the handshake era's,
    # server/discover the 2026 protocol's): none answers -32601 under both.
    codes = [getattr(answer(mode, method, {}), "code", None) for mode in MODES]
    assert codes.count(types.METHOD_NOT_FOUND) < len(MODES), codes
