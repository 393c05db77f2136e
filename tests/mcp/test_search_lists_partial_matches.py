"""search_incidents lists the partial matches (confidence weak) the page and the API list after
the last page of matches, in `partial_matches`, as the API does. It used to build its answer
from the matches only: `"fell off the bus"` gave `total: 0, hits: []` with the engine's note
"the closest cases are listed as partial matches" and no case, while /api/cases/ listed
IL-0523, the case that answers it. (The phrase itself, in no case as written, is now
searched by its words: IL-0523 comes first, a match.)"""

from __future__ import annotations

import pytest

from incidents import search
from incidents.search.engine import PHRASE_LOOSENED
from mcp_server import tools
from mcp_server.budget import json_size

pytestmark = pytest.mark.django_db

PARTIAL_NOTE = "No case matches this query well: the closest cases are listed as partial matches."


@pytest.mark.parametrize("query", ["exitcode -9", "bluetooth pairing"])
def test_a_query_nothing_matches_well_lists_the_closest_cases_as_the_api_does(mcp, client, query):
    result = mcp.ok("search_incidents", query=query)
    api = client.get("/api/cases/", {"q": query}).json()
    engine = search.search_cases(query=query, limit=10, facets=False)
    assert (result["total"], result["hits"], result["next_cursor"]) == (0, [], None)
    listed = [hit.case.id for hit in engine.partial_hits]
    assert listed and [hit["id"] for hit in result["partial_matches"]] == listed
    assert [hit["id"] for hit in api["partial_matches"]] == listed
    assert {hit["confidence"] for hit in result["partial_matches"]} == {"weak"}
    assert [hit["score"] for hit in result["partial_matches"]] == [
        round(hit.score or 0, 4) for hit in engine.partial_hits
    ]
    assert result["notes"] == [
        PARTIAL_NOTE,
        "Nothing matched well: try fewer or other words (vocab lists synonyms).",
    ]


def test_the_quoted_phrase_finds_its_case_by_its_words(mcp, client):
    # IL-0523: "the GPU has fallen off the bus" (Xid 79), the case the phrase is about: no
    # case says "fell off the bus", so its words are searched, and a note says so.
    result = mcp.ok("search_incidents", query='"fell off the bus"')
    assert result["notes"][0] == PHRASE_LOOSENED
    hit = result["hits"][0]
    assert hit["id"] == "IL-0523"
    assert hit["html_url"].endswith("/cases/IL-0523") and hit["url"].endswith("/api/cases/IL-0523")
    assert client.get("/api/cases/", {"q": '"fell off the bus"'}).json()["results"][0]["id"] == "IL-0523"


def test_they_follow_the_last_page_of_matches_only(mcp):
    # "Xid 79": two matches (IL-0523, IL-0444), then partial matches.
    first = mcp.ok("search_incidents", query="Xid 79", limit=1)
    assert first["total"] == 2 and first["partial_matches"] == []
    last = mcp.ok("search_incidents", query="Xid 79", limit=1, cursor=first["next_cursor"])
    # As many as the page holds, at most five (`hydration.PARTIAL_SHOWN`), as on the API's page.
    engine = search.search_cases(query="Xid 79", offset=1, limit=1, facets=False)
    assert [hit["id"] for hit in last["partial_matches"]] == [hit.case.id for hit in engine.partial_hits]
    assert last["next_cursor"] is None and len(last["partial_matches"]) == 1
    assert len(mcp.ok("search_incidents", query="Xid 79", limit=5)["partial_matches"]) == 5


def test_a_page_cut_to_the_budget_leaves_them_to_the_next_page(mcp, monkeypatch):
    whole = mcp.ok("search_incidents", query="ECC error", limit=25)
    assert whole["total"] == len(whole["hits"]) and len(whole["partial_matches"]) == 5
    monkeypatch.setitem(tools.BUDGETS, "search_incidents", 4_000)
    cut = mcp.ok("search_incidents", query="ECC error", limit=25)
    assert cut["truncated"] is True and json_size(cut) <= 4_000
    assert cut["partial_matches"] == [] and cut["hits"] == whole["hits"][: len(cut["hits"])]


def test_the_output_schema_names_them(mcp):
    listed = {t.name: t for t in mcp.run(lambda client: client.list_tools()).tools}
    schema = listed["search_incidents"].output_schema
    assert schema["properties"]["partial_matches"] == {
        "items": {"$ref": "#/$defs/SearchHit"},
        "type": "array",
    }
    assert "partial_matches" in listed["search_incidents"].description
