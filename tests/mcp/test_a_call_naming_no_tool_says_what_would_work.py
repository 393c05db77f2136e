"""`tools/call` naming no tool (no `params`, no `name`, a `name` that is no string) is still a
-32602 (no tool is named to answer with a tool error), but no longer the SDK's bare "Invalid
request parameters" with empty `data`: the error shows a call that works and lists the
tools, in its message and in `data`."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from mcp_server.server import build_server
from tests.mcp.conftest import TOOL_ORDER

TOOLS = list(TOOL_ORDER)


def refusal(mode: str, params: Any) -> types.ErrorData:
    """The error answering a `tools/call` with these `params`, sent as a client that does not
    check its own requests would send it."""
    request = types.CallToolRequest.model_construct(method="tools/call", params=params)

    async def main() -> types.ErrorData:
        async with Client(build_server(), mode=mode) as client:
            with pytest.raises(MCPError) as raised:
                await client.session.send_request(request, types.CallToolResult)
            return raised.value.error

    with warnings.catch_warnings():  # pydantic's serializer notes the values it did not expect
        warnings.simplefilter("ignore", UserWarning)
        return anyio.run(main)


def without_name(**fields: Any) -> types.CallToolRequestParams:
    return types.CallToolRequestParams.model_construct(
        arguments={"id": "IL-0428"}, meta=None, task=None, input_responses=None, request_state=None, **fields
    )


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize(
    ("params", "got"),
    [
        (None, "params were missing"),
        (without_name(), "params had no name"),
        (without_name(name=5), "name must be a string (got 5)"),
    ],
)
def test_a_call_naming_no_tool_shows_one_that_works(db, mode, params, got):
    if params is None and mode != "legacy":
        # The 2026 protocol's client always sends params (its `_meta` carries the version).
        got = "params had no name"
    error = refusal(mode, params)
    assert error.code == types.INVALID_PARAMS
    assert error.message == (
        'tools/call needs params naming the tool and its arguments, such as {"name": "get_incident", '
        f'"arguments": {{"id": "IL-0428"}}}} ({got}). The tools are: {", ".join(TOOLS)}.'
    )
    assert error.data == {"example": {"name": "get_incident", "arguments": {"id": "IL-0428"}}, "tools": TOOLS}
