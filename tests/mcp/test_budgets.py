"""Every tool's result stays within its stated byte budget, even for the largest inputs the
tools accept; past the budget a result is cut at an item boundary, says `truncated` and how
to get the rest."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.selectors import MAX_QUERY_CHARS
from mcp_server import tools
from mcp_server.budget import json_size
from mcp_server.toolkit import ToolSpec
from tests.mcp.test_match_log import LOG

LONGEST_LOG = (LOG * (1_000_000 // len(LOG) + 1))[:1_000_000]
LONGEST_QUERY = ("GPU NCCL hang " * 200)[:MAX_QUERY_CHARS]

LARGEST = [
    ("triage", {"symptoms": LONGEST_QUERY, "log": LONGEST_LOG, "limit": 5}),
    ("search_incidents", {"query": LONGEST_QUERY, "limit": 25, "facets": True}),
    ("search_incidents", {"query": "GPU", "limit": 25, "facets": True}),
    ("list_incidents", {"limit": 50, "facets": True}),
    ("get_topic", {"slug": "interconnect", "latest": 20}),
    ("vocab", {}),
    ("similar_incidents", {"id": "IL-0444", "limit": 20}),
    ("match_log", {"text": LONGEST_LOG, "limit": 20}),
]


def spec(name: str) -> ToolSpec:
    return next(s for s in tools.TOOLS if s.name == name)


def test_every_tool_has_a_budget_and_states_it():
    for tool in tools.TOOLS:
        assert tool.budget == tools.BUDGETS[tool.name] <= tools.MAX_LIST_RESPONSE_BYTES
        assert f"budget {tool.budget // 1000} KB" in tool.description, tool.name


@pytest.mark.parametrize(("name", "arguments"), LARGEST, ids=[n for n, _ in LARGEST])
def test_the_largest_inputs_stay_within_the_budget(mcp, name, arguments):
    assert json_size(mcp.ok(name, **arguments)) <= spec(name).budget


def test_every_document_stays_within_the_budget(mcp):
    for case_id in Case.objects.published().values_list("id", flat=True):
        assert json_size(mcp.ok("get_incident", id=case_id)) <= spec("get_incident").budget


def test_a_search_past_its_budget_is_cut_and_the_cursor_goes_on(mcp, monkeypatch):
    whole = mcp.ok("search_incidents", query="GPU", limit=10)
    monkeypatch.setitem(tools.BUDGETS, "search_incidents", 3_000)
    cut = mcp.ok("search_incidents", query="GPU", limit=10)
    assert cut["truncated"] is True and json_size(cut) <= 3_000
    kept = len(cut["hits"])
    assert 0 < kept < 10
    assert cut["hits"] == whole["hits"][:kept]
    rest = mcp.ok("search_incidents", query="GPU", limit=10, cursor=cut["next_cursor"])
    rest_ids = [h["id"] for h in rest["hits"]]  # cut to the budget as well
    assert rest_ids and rest_ids == [h["id"] for h in whole["hits"][kept : kept + len(rest_ids)]]


def test_a_document_past_its_budget_leaves_out_its_last_fields_and_names_them(mcp, monkeypatch):
    monkeypatch.setitem(tools.BUDGETS, "get_incident", 2_500)
    document = mcp.ok("get_incident", id="IL-0428")
    assert document["truncated"] is True and json_size(document) <= 2_500
    assert {"id", "title", "url", "html_url"} <= set(document)
    assert document["omitted_fields"] and not set(document["omitted_fields"]) & set(document)
    again = mcp.ok("get_incident", id="IL-0428", fields=document["omitted_fields"][:2])
    assert set(document["omitted_fields"][:2]) <= set(again)


def test_a_log_match_past_its_budget_keeps_whole_cases_and_their_lines(mcp, monkeypatch):
    whole = mcp.ok("match_log", text=LOG, limit=10)
    monkeypatch.setitem(tools.BUDGETS, "match_log", 2_000)
    cut = mcp.ok("match_log", text=LOG, limit=10)
    assert cut["truncated"] is True and json_size(cut) <= 2_000
    assert cut["hits"] == whole["hits"][: len(cut["hits"])]
    shown = {m["line_number"] for h in cut["hits"] for m in h["matched_lines"]}
    assert {line["line_number"] for line in cut["lines"]} == shown
    assert cut["notes"][-1].startswith(f"Cut to the budget after {len(cut['hits'])} cases")


def test_the_vocabulary_past_its_budget_says_which_facets_to_ask_for(mcp, monkeypatch):
    monkeypatch.setitem(tools.BUDGETS, "vocab", 4_000)
    cut = mcp.ok("vocab")
    assert cut["truncated"] is True and json_size(cut) <= 4_000
    assert cut["notes"][0].startswith("Cut to the budget: call vocab with facet=")
