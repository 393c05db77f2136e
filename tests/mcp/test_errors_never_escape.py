"""No tool lets an exception reach the client: failures come back as tool errors."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from incidents import search, selectors
from tests.mcp.conftest import TOOL_NAMES, TOOL_ORDER


def test_a_crash_inside_a_tool_is_an_error_result_without_internals(mcp, monkeypatch):
    def crash(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(search, "search_cases", crash)
    message = mcp.error("search_incidents", query="hang")
    assert message == "Error executing tool search_incidents"
    assert "secret" not in message


def test_a_database_failure_says_to_retry(mcp, monkeypatch):
    def unavailable(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(selectors, "vocabulary", unavailable)
    assert mcp.error("vocab") == "The incident database did not answer; try again in a moment."


@pytest.mark.parametrize("name", sorted(TOOL_NAMES))
@pytest.mark.parametrize(
    "arguments",
    [
        {"limit": "many"},
        {"id": 428, "slug": ["x"], "query": None, "text": {"a": 1}},
        {"facet": 3, "fields": "title"},
    ],
)
def test_wrong_types_are_tool_errors(mcp, name, arguments):
    assert mcp.error(name, **arguments).startswith(("Invalid arguments: ", "Unknown argument"))


def test_an_unknown_tool_is_an_error_naming_the_real_tools(mcp):
    assert mcp.error("delete_incident", id="IL-0428") == (
        "Unknown tool: delete_incident. The tools are: " + ", ".join(TOOL_ORDER) + "."
    )


def test_text_that_reads_as_json_is_judged_as_the_sdk_passes_it(mcp):
    """The SDK reads a string argument of a `str | None` parameter as JSON when it holds an
    object or array; the argument check judges that value, so the answer is a sentence,
    not pydantic's report."""
    message = mcp.error("triage", symptoms="hang", framework='{"$gt": ""}')
    assert message.startswith("Invalid arguments: framework: Input should be a valid string")
    assert "pydantic" not in message
