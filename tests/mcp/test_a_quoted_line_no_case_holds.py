"""MCP `search_incidents` says when a quoted line no case holds was searched by its words."""

from __future__ import annotations

from incidents.search.engine import PHRASE_LOOSENED


def test_search_incidents_notes_the_loosened_phrase(mcp):
    answer = mcp.ok("search_incidents", query='"CUDA error: an illegal memory access was encountered"')
    assert answer["notes"][0] == PHRASE_LOOSENED
    assert answer["hits"]
