"""`python manage.py mcp_stdio` speaks MCP over stdin/stdout, as desktop clients launch it."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from django.conf import settings
from mcp import Client, StdioServerParameters

from tests.mcp.conftest import TOOL_NAMES, server_environment
from tests.mcp.test_arguments_that_are_not_an_object import LONE_ID_RESULT


def initialize_request(request_id: int) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }


def run_stdio(database_url: str, lines: list[str], *, timeout: int = 120) -> subprocess.CompletedProcess:
    """`manage.py mcp_stdio` fed `lines` (one message each), run to the end of its input."""
    return subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio"],
        cwd=settings.BASE_DIR,
        env=server_environment(database_url),
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# Marked so this runs before transactional tests flush the session's cases.
pytestmark = pytest.mark.django_db


def test_the_stdio_command_serves_the_tools(served_database_url):
    command = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio"],
        cwd=settings.BASE_DIR,
        env=server_environment(served_database_url),
    )

    async def session():
        async with Client(command, mode="legacy") as client:
            tools = await client.list_tools()
            result = await client.call_tool("get_incident", {"id": "IL-0428", "fields": ["title"]})
            topic = await client.read_resource("topic://interconnect")
            return client.server_info, tools.tools, result, topic

    info, tools, result, topic = anyio.run(session)
    assert info.name == "incidentlib"
    assert {tool.name for tool in tools} == TOOL_NAMES
    assert result.structured_content["title"].startswith("Test runs of 100B-200B models")
    assert topic.contents[0].text.startswith("# Topic: Interconnect faults (interconnect)\n")


def test_malformed_lines_get_json_rpc_errors_on_stdout_and_a_line_on_stderr(served_database_url):
    initialize = initialize_request(2)
    lines = [
        "{not json",
        json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
        json.dumps({"jsonrpc": "1.0", "id": 5, "method": "ping"}),
        json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": "get_incident"}),
        json.dumps(initialize),
    ]
    finished = run_stdio(served_database_url, lines)
    answers = [json.loads(line) for line in finished.stdout.splitlines()]
    assert answers[:4] == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": "Parse error: the line is not JSON"},
        },
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Batch requests are not supported (removed in MCP 2025-06-18): "
                "send one message per request",
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "error": {"code": -32600, "message": '"jsonrpc" must be "2.0" (got "1.0")'},
        },
        {
            "jsonrpc": "2.0",
            "id": 6,
            "error": {
                "code": -32600,
                "message": '"params" must be an object of named parameters (got a string)',
            },
        },
    ]
    assert answers[4]["id"] == 2 and answers[4]["result"]["serverInfo"]["name"] == "incidentlib"
    refused = [line for line in finished.stderr.splitlines() if line.startswith("mcp_stdio: ")]
    assert refused == [
        "mcp_stdio: input line 1 refused: Parse error: the line is not JSON",
        "mcp_stdio: input line 2 refused: Batch requests are not supported (removed in MCP 2025-06-18): "
        "send one message per request",
        'mcp_stdio: input line 3 refused: "jsonrpc" must be "2.0" (got "1.0")',
        'mcp_stdio: input line 4 refused: "params" must be an object of named parameters (got a string)',
    ]


def test_requests_still_served_when_the_input_ends_are_answered(served_database_url):
    # A script pipes its requests and closes stdin at once: every request is answered, the
    # slow tool call included, before the server exits.
    initialize = initialize_request(1)
    lines = [
        initialize,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "triage", "arguments": {"symptoms": "training hangs after adding nodes"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "get_incident", "arguments": {"id": "IL-0428"}},
        },
    ]
    finished = run_stdio(served_database_url, [json.dumps(line) for line in lines], timeout=180)
    answers = {answer["id"]: answer for answer in map(json.loads, finished.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3, 4]
    assert answers[3]["result"]["structuredContent"]["cases"]
    assert answers[4]["result"]["structuredContent"]["id"] == "IL-0428"
    assert "unanswered" not in finished.stderr


def test_arguments_that_are_not_an_object_are_a_tool_error_over_stdio(served_database_url):
    lines = [
        initialize_request(1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_incident", "arguments": "IL-0428"},
        },
    ]
    finished = run_stdio(served_database_url, [json.dumps(line) for line in lines])
    answers = {answer["id"]: answer for answer in map(json.loads, finished.stdout.splitlines())}
    assert answers[2] == {"jsonrpc": "2.0", "id": 2, "result": LONE_ID_RESULT}
