"""Each door's most cases per answer is the one constant `incidents.limits` names beside why
the doors differ: the API's schema and the MCP tools' input schemas state those values, and
an MCP tool's ceiling is about what its byte budget holds (`limits`' docstring)."""

from __future__ import annotations

import json
import re

import pytest

from incidents import limits
from mcp_server.tools import BUDGETS
from tests.api.conftest import openapi_schema

pytestmark = pytest.mark.django_db


def api_maximum(path: str, method: str, name: str) -> int:
    """The largest value the schema gives `name`: a query parameter's is in its description
    (its schema also takes a blank value), a JSON body field's is its integer branch's `maximum`."""
    operation = openapi_schema()["paths"][path][method]
    if method == "get":
        [parameter] = [p for p in operation["parameters"] if p["name"] == name]
        return int(re.search(r"\b1 to (\d+)\b", parameter["description"]).group(1))
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    field = openapi_schema()["components"]["schemas"][ref]["properties"][name]
    return max(branch.get("maximum", 0) for branch in field.get("anyOf", [field]))


def test_the_api_states_the_limits_of_one_place():
    assert api_maximum("/api/cases/", "get", "page_size") == limits.API_PAGE_SIZE
    assert api_maximum("/api/cases/{case_id}/similar", "get", "limit") == limits.SIMILAR
    assert api_maximum("/api/match", "post", "limit") == limits.API_MATCH


def test_the_mcp_tools_state_the_limits_of_one_place(mcp):
    schemas = {
        t.name: t.input_schema["properties"] for t in mcp.run(lambda client: client.list_tools()).tools
    }
    assert {
        name: schemas[name]["limit"]["maximum"]
        for name in ("search_incidents", "list_incidents", "match_log", "similar_incidents")
    } == {
        "search_incidents": limits.MCP_SEARCH,
        "list_incidents": limits.MCP_LIST,
        "match_log": limits.MCP_MATCH,
        "similar_incidents": limits.SIMILAR,
    }


def test_the_most_search_hits_an_assistant_may_ask_for_fit_its_budget(mcp):
    # The reason MCP stops below the API: a larger limit would only be cut to the budget.
    found = mcp.ok("search_incidents", query="gpu", limit=limits.MCP_SEARCH)
    assert len(found["hits"]) == limits.MCP_SEARCH and not found.get("truncated")
    assert len(json.dumps(found, separators=(",", ":"))) <= BUDGETS["search_incidents"]
