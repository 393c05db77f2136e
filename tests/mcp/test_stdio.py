"""`python manage.py mcp_stdio` speaks MCP over stdin/stdout, as desktop clients launch it."""

from __future__ import annotations

import sys

import anyio
import pytest
from django.conf import settings
from mcp import Client, StdioServerParameters

from tests.mcp.conftest import TOOL_NAMES, server_environment

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
            topic = await client.read_resource("topic://training")
            return client.server_info, tools.tools, result, topic

    info, tools, result, topic = anyio.run(session)
    assert info.name == "incidentlib"
    assert {tool.name for tool in tools} == TOOL_NAMES
    assert result.structured_content["title"].startswith("Test runs of 100B-200B models")
    assert topic.contents[0].text.startswith("# Topic: Training (training)\n")
