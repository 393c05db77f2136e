"""A search that finds nothing says why in words that fit the query, the same at every door
(the page, `GET /api/cases/`, MCP `search_incidents`: one engine writes the notes): "with
these filters" only when a filter is set; operator words alone (`OR`, `NOT`) are named as
operators, not as punctuation."""

from __future__ import annotations

import html

import pytest

from incidents.search import search_cases
from incidents.selectors import CaseFilters

pytestmark = pytest.mark.django_db

UNFILTERED = "No case matches this query."
FILTERED = "No case matches this query with these filters."
OR_ALONE = (
    "The query holds only search operators (OR) and no word to search:"
    " type a word, an error message or a component."
)


def every_door(client, mcp, query: str, **filters: str) -> list[list[str]]:
    """The notes of the page, the API and the MCP tool for `query` with `filters` (the tool
    adds a hint of its own after the engine's notes)."""
    page = client.get("/cases/", {"q": query, **filters}).content.decode()
    api = client.get("/api/cases/", {"q": query, **filters}).json()["notes"]
    tool = mcp.ok("search_incidents", query=query, **filters)["notes"][: len(api)]
    shown = [note for note in api if f'<p class="note">{html.escape(note)}</p>' in page]
    return [shown, api, tool]


@pytest.mark.parametrize("query", ["zyxwvutsrq", "1e309", "ｘｉｄ"])
def test_no_match_without_filters_does_not_mention_filters(query):
    assert search_cases(query=query).notes == [UNFILTERED]


def test_no_match_with_a_filter_mentions_the_filters():
    results = search_cases(query="zyxwvutsrq", filters=CaseFilters(include={"topic": ("training-hang",)}))
    assert results.notes == [FILTERED]


def test_operator_words_alone_are_named_as_operators():
    assert search_cases(query="OR").notes == [OR_ALONE]
    assert search_cases(query="NOT").notes == [
        "The query holds only search operators (NOT) and no word to search:"
        " type a word, an error message or a component."
    ]
    assert search_cases(query="NOT OR NOT").notes == [
        "The query holds only search operators (NOT/OR) and no word to search:"
        " type a word, an error message or a component."
    ]


def test_every_door_gives_the_same_notes(client, mcp):
    assert every_door(client, mcp, "zyxwvutsrq") == [[UNFILTERED]] * 3
    assert every_door(client, mcp, "zyxwvutsrq", topic="training-hang") == [[FILTERED]] * 3
    assert every_door(client, mcp, "OR") == [[OR_ALONE]] * 3
