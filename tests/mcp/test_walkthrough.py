"""A scripted assistant's walkthrough (an MCP client over HTTP, no model): for five on-call
scenarios, one `triage` call returns the right case first, with its checks and sources,
within 8 KB (issue 16: this took 5-10 calls and 20-37 KB before triage)."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from mcp_server.budget import json_size
from tests.conftest import load_fixture
from tests.mcp.scenarios import SCENARIOS

pytestmark = pytest.mark.django_db


def test_one_triage_call_answers_each_scenario(base_url):
    async def walk():
        answers = {}
        async with Client(f"{base_url}/mcp", mode="legacy") as client:
            for scenario in SCENARIOS:
                arguments = {"symptoms": scenario.symptoms, "text": scenario.log, **scenario.context}
                answers[scenario.name] = await client.call_tool("triage", arguments)
        return answers

    answers = anyio.run(walk)
    for scenario in SCENARIOS:
        result = answers[scenario.name]
        assert not result.is_error, scenario.name
        answer = result.structured_content
        first = answer["cases"][0]
        assert first["id"] == scenario.expected, (scenario.name, [c["id"] for c in answer["cases"]])
        assert first["confidence"] == "strong" and answer["known"] is True, scenario.name
        fixture = load_fixture(scenario.expected)
        assert first["checks"] and first["checks"][0][:80] == " ".join(fixture["checks"][0].split())[:80]
        assert first["sources"] == [s["url"] for s in fixture["sources"]][: len(first["sources"])]
        assert first["sources"] and first["html_url"].endswith(f"/cases/{scenario.expected}")
        # What the client read: the text content (the structured content is the same JSON).
        assert json_size(answer) <= 8_000, scenario.name
        assert len(result.content[0].text.encode()) <= 8_000, scenario.name
