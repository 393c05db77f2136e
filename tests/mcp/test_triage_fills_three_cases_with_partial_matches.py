"""Triage keeps its promise of at least three cases: when fewer match the words, the word
search's best partial matches fill the answer up to three, after the matches, labelled weak
as search gives them, and a note names them so nobody reads them as matches."""

from __future__ import annotations

from incidents import search
from incidents import triage as triage_module

TWO_MATCH = "checkpoint upload to object storage throttled"  # two matches on both backends
PRINTER = "the office printer is out of toner and jams on every page"  # none


def ids(cases: list[dict]) -> list[str]:
    return [case["id"] for case in cases]


def test_two_matches_are_followed_by_the_best_partial_match(mcp, client):
    results = search.search_cases(query=TWO_MATCH, limit=10, facets=False)
    matches, partial = [h.case.id for h in results.hits], [h.case.id for h in results.partial_hits]
    assert len(matches) == 2 and partial  # the premise
    answer = mcp.ok("triage", symptoms=TWO_MATCH)
    assert ids(answer["cases"]) == [*matches, partial[0]]
    assert answer["cases"][2]["confidence"] == "weak"
    assert answer["notes"][-1] == (
        f"Only 2 cases match; the closest partial matches fill the list: {partial[0]} (weak)."
    )
    # The API's search lists the same case as the first partial match, with the same label.
    listed = client.get("/api/cases/", {"q": TWO_MATCH}).json()["partial_matches"][0]
    assert (listed["id"], listed["confidence"]) == (partial[0], "weak")


def test_with_no_match_three_partial_matches_and_nothing_known(mcp):
    results = search.search_cases(query=PRINTER, limit=10, facets=False)
    partial = [h.case.id for h in results.partial_hits]
    assert not results.hits and len(partial) >= 3
    answer = mcp.ok("triage", symptoms=PRINTER)
    assert ids(answer["cases"]) == partial[:3]
    assert {case["confidence"] for case in answer["cases"]} == {"weak"}
    assert answer["known"] is False
    assert answer["notes"] == [
        triage_module.NOTHING_KNOWN,
        f"No case matches; the closest partial matches fill the list: {', '.join(partial[:3])} (weak).",
    ]


def test_enough_matches_take_no_partial_match(mcp):
    answer = mcp.ok("triage", symptoms="NCCL", limit=5)
    assert len(answer["cases"]) == 5
    assert not any("partial matches" in note for note in answer["notes"])
