"""A hit listed as a case like the first hit names that hit in `like`, at every door.

After a confident first hit, its nearest similar case is listed first among the partial
matches (`nearest_to_first`), and a log's best hit lifts the cases like it
(`log_scores.like_the_first`); each said so only in its `why` ("Similar to IL-0497, the
first hit."), which a program had to parse. `like` gives the first hit's id (null on every
other hit) in GET /api/cases/, POST /api/match, MCP search_incidents and match_log, each
described in the OpenAPI schema and the tools' output schemas.

A neighbour that was no candidate of the query is added with score 0: `score` stays the
probability that the case answers the query (its similarity, 0.34 or more, would read as a
possible match labelled weak), and `like` says what placed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log, search_cases
from tests.api.conftest import openapi_schema

pytestmark = pytest.mark.django_db

# A tuning query whose confident first hit's nearest case shares few of its words (it was a
# candidate, moved up), and one whose nearest case was no candidate at all (added).
MOVED = (
    "GB200 run freezes mid training, every rank at 100% util, no error, no timeout, no Xid",
    "IL-0497",
    "IL-0500",
)
ADDED = ("serialize-image-pulls", "IL-0459", "IL-0530")
# IL-0498 quotes this log's Xid 149; the cases like it that the log shares evidence with are
# listed higher (`test_log_lists_cases_like_its_best_hit.py`).
LOG = Path(__file__).resolve().parents[2] / "eval" / "logs" / "t2-xid149-nvlink-gb200.log"


def likes(hits) -> list[tuple[str, str | None]]:
    """(id, like) of each hit: the API gives `like` on every hit, null on all but the one
    like the first hit; MCP leaves it out of those (12 bytes a hit)."""
    return [(hit["id"], hit["like"] if "like" in hit else None) for hit in hits]


@pytest.mark.parametrize(("query", "first", "nearest"), [MOVED, ADDED])
def test_the_nearest_case_names_the_first_hit_and_no_other_hit_names_one(query, first, nearest):
    results = search_cases(query=query, facets=False)
    assert results.hits[0].case.id == first
    [listed, *others] = results.partial_hits
    assert (listed.case.id, listed.like, listed.why.endswith(f"Similar to {first}, the first hit.")) == (
        nearest,
        first,
        True,
    )
    assert {hit.like for hit in [*results.hits, *others]} == {None}


@pytest.mark.parametrize(("query", "first", "nearest"), [MOVED, ADDED])
def test_the_api_and_search_incidents_give_it(client, mcp, query, first, nearest):
    body = client.get("/api/cases/", {"q": query}).json()
    tool = mcp.ok("search_incidents", query=query)
    assert all("like" in hit for hit in [*body["results"], *body["partial_matches"]])
    assert [hit["id"] for hit in [*tool["hits"], *tool["partial_matches"]] if "like" in hit] == [nearest]
    for matches, partial in (
        (body["results"], body["partial_matches"]),
        (tool["hits"], tool["partial_matches"]),
    ):
        assert likes(matches)[0] == (first, None)
        assert {like for _, like in likes(matches)} == {None}
        assert likes(partial)[0] == (nearest, first)
        assert {like for _, like in likes(partial)[1:]} == {None}
    # Asked for alone, as any field of a hit.
    body = client.get("/api/cases/", {"q": query, "fields": "like"}).json()
    assert body["partial_matches"][0] == {"id": nearest, "like": first}


def test_a_nearest_case_that_was_no_candidate_scores_0_and_says_only_that():
    query, first, nearest = ADDED
    listed = search_cases(query=query, facets=False).partial_hits[0]
    # No word of the query in it and not near its meaning: nothing but the likeness to say.
    assert (listed.case.id, listed.score, listed.confidence) == (nearest, 0.0, "weak")
    assert listed.why == f"Similar to {first}, the first hit."


def test_match_log_and_the_api_give_the_log_hits_like_the_first(client, mcp):
    text = LOG.read_text(encoding="utf-8")
    hits = read_log(text).hits
    assert hits[0].case.id == "IL-0498" and hits[0].like is None
    expected = [(hit.case.id, hit.like) for hit in hits]
    assert ("IL-0499", "IL-0498") in expected
    for hit in hits:
        assert hit.why.endswith("Similar to IL-0498, the first hit.") == (hit.like == "IL-0498"), hit.case.id
    body = client.post("/api/match", {"text": text}, content_type="application/json").json()
    assert likes(body["results"]) == expected[: len(body["results"])]
    tool = mcp.ok("match_log", text=text, limit=10)
    assert likes(tool["hits"]) == expected[: len(tool["hits"])]


def test_the_schemas_describe_it(mcp):
    schemas = openapi_schema()["components"]["schemas"]
    for name in ("SearchHit", "LogHit"):
        assert schemas[name]["properties"]["like"]["type"] == ["string", "null"], name
        assert "first hit" in schemas[name]["properties"]["like"]["description"], name
    tools = {t.name: t.output_schema for t in mcp.run(lambda client: client.list_tools()).tools}
    assert "like" in tools["search_incidents"]["$defs"]["SearchHit"]["properties"]
    assert "like" in tools["match_log"]["properties"]["hits"]["items"]["properties"]
