"""`partial_count` counts every partial match, of which at most five are ever listed
(`partial_matches`, after the last page of matches): the API's schema, search_incidents'
description and the page say so, in the page's words, and, when a filter is on, how to see
others (a filter lists the closest of those it keeps). The schema said only "Cases that match only
partially", a user read 38 where five were listed and looked for the others; MCP gave no
count at all."""

from __future__ import annotations

import pytest

from incidents import search
from incidents.search.hydration import PARTIAL_SHOWN
from tests.api.conftest import openapi_schema

pytestmark = pytest.mark.django_db

QUERY = "exitcode -9"  # no match: every case it lists is a partial match
HINT = "a filter lists the closest of those it keeps"


def test_every_door_counts_them_all_and_lists_the_closest_five(mcp, client):
    engine = search.search_cases(query=QUERY, limit=10, facets=False)
    assert engine.partial_total > PARTIAL_SHOWN == 5 == len(engine.partial_hits)
    api = client.get("/api/cases/", {"q": QUERY}).json()
    tool = mcp.ok("search_incidents", query=QUERY)
    assert api["partial_count"] == tool["partial_count"] == engine.partial_total
    assert len(api["partial_matches"]) == len(tool["partial_matches"]) == 5
    page = client.get("/cases/", {"q": QUERY}).content.decode()
    assert (
        f"{engine.partial_total} cases share only some words or a loose resemblance with the query; "
        f"the closest 5 are listed. They are not counted above. The others are not listed.</p>"
    ) in page
    # How to see others is said where a filter is on (it read as a riddle with none on).
    assert HINT not in page


def test_a_filter_lists_the_closest_of_those_it_keeps(mcp, client):
    whole = client.get("/api/cases/", {"q": QUERY}).json()
    filtered = client.get("/api/cases/", {"q": QUERY, "year": "2024"}).json()
    assert 0 < filtered["partial_count"] < whole["partial_count"]
    assert filtered["partial_matches"] != whole["partial_matches"]
    tool = mcp.ok("search_incidents", query=QUERY, year=2024)
    assert tool["partial_count"] == filtered["partial_count"]
    assert [hit["id"] for hit in tool["partial_matches"]] == [
        hit["id"] for hit in filtered["partial_matches"]
    ]
    if filtered["partial_count"] > 5:
        page = client.get("/cases/", {"q": QUERY, "year": "2024"}).content.decode()
        assert f"The others are not listed: {HINT}.</p>" in page


def test_the_schema_and_the_tool_description_say_how_many_are_listed(mcp):
    fields = openapi_schema()["components"]["schemas"]["CaseList"]["properties"]
    assert fields["partial_count"]["description"] == (
        "Cases that share only some words or a loose resemblance with the query (not in `count`): "
        "all of them, of which `partial_matches` lists the closest 5 at most."
    )
    assert "at most 5" in fields["partial_matches"]["description"]
    assert HINT in fields["partial_matches"]["description"]
    listed = {t.name: t for t in mcp.run(lambda client: client.list_tools()).tools}
    described = " ".join((listed["search_incidents"].description or "").split())
    assert f"partial_matches: the closest 5 of partial_count, last page only ({HINT})." in described
    assert listed["search_incidents"].output_schema["properties"]["partial_count"] == {"type": "integer"}
