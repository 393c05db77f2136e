"""`tools/call` with `arguments` that are not a JSON object (`"arguments": "IL-0428"`) is a
tool error saying what would work, as any other bad argument is; the SDK alone answers a
bare -32602 "Invalid request parameters" with empty `data`. Over HTTP and stdio:
tests/mcp/test_http_end_to_end.py and tests/mcp/test_stdio.py."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import pytest
from mcp import Client, types

from mcp_server.server import build_server

MODES = ["legacy", "2026-07-28"]


def call_with_raw_arguments(mode: str, name: str, arguments: Any) -> types.CallToolResult:
    """`tools/call` as a client that does not check its own request sends it (the SDK's
    client would refuse to build it)."""
    params = types.CallToolRequestParams.model_construct(
        name=name, arguments=arguments, meta=None, task=None, input_responses=None, request_state=None
    )
    request = types.CallToolRequest.model_construct(method="tools/call", params=params)

    async def main() -> types.CallToolResult:
        async with Client(build_server(), mode=mode) as client:
            return await client.session.send_request(request, types.CallToolResult)

    with warnings.catch_warnings():  # pydantic's serializer notes the string where a dict goes
        warnings.simplefilter("ignore", UserWarning)
        return anyio.run(main)


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error and result.structured_content is None
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return content.text


# get_incident called with `"IL-0428"` for its arguments: the tool error, at every transport.
LONE_ID_ERROR = (
    'Invalid arguments: arguments must be an object such as {"id": "IL-0428"} (got "IL-0428"); '
    "get_incident takes: id, fields."
)
LONE_ID_RESULT = {"content": [{"type": "text", "text": LONE_ID_ERROR}], "isError": True}


@pytest.mark.parametrize("mode", MODES)
def test_a_lone_id_is_answered_with_the_object_that_would_work(db, mode):
    result = call_with_raw_arguments(mode, "get_incident", "IL-0428")
    assert error_text(result) == LONE_ID_ERROR


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        (
            "get_incident",
            ["IL-0428"],
            'Invalid arguments: arguments must be an object naming each argument (got ["IL-0428"]); '
            "get_incident takes: id, fields.",
        ),
        (
            "match_log",
            "NVRM: Xid 79",
            'Invalid arguments: arguments must be an object such as {"text": "NVRM: Xid 79"} '
            '(got "NVRM: Xid 79"); match_log takes: text, limit.',
        ),
        (
            # No one required parameter to name: the tool's parameters are listed.
            "vocab",
            "topic",
            'Invalid arguments: arguments must be an object naming each argument (got "topic"); '
            "vocab takes: facet.",
        ),
        (
            # The object sent as its JSON text: send the object itself.
            "get_incident",
            '{"id": "IL-0428"}',
            'Invalid arguments: arguments must be an object, not a string holding one: send {"id": '
            '"IL-0428"} itself, without the quotes; get_incident takes: id, fields.',
        ),
        (
            "vocab",
            7,
            "Invalid arguments: arguments must be an object naming each argument (got 7); "
            "vocab takes: facet.",
        ),
    ],
)
def test_other_values_name_what_the_tool_takes(db, name, arguments, expected):
    assert error_text(call_with_raw_arguments("legacy", name, arguments)) == expected


def test_an_unknown_tool_is_still_named_first(db):
    result = call_with_raw_arguments("legacy", "get_incidents", "IL-0428")
    assert error_text(result).startswith("Unknown tool: get_incidents. The tools are: triage, ")
