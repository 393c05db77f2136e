"""A search hit says why it is listed at every door: the words it shares with the query
marked in its snippet, the vocabulary terms it matched, and, for a case found by meaning
alone (no query word in it), that in words (`results.MEANING_ONLY`), the same on the page,
in `GET /api/cases/` and in `search_incidents`.

Two reviews saw hits with no reason shown. A case holding only some of the query's words
got a snippet without any marked word (SQLite read snippets only from rows holding every
word; PostgreSQL's ts_headline found no fragment covering the whole query): it now shows
the words it shares. A case found by meaning alone is labelled weak, as calibration says
(`fusion.WEIGHTS`: such a case cannot reach `POSSIBLE_P`), and now says why it is there."""

from __future__ import annotations

import re

import pytest

from incidents.search import fusion, search_cases
from incidents.search.results import MEANING_ONLY
from tests.mcp.conftest import InMemoryMcp
from tests.web.html import element, text_of

pytestmark = pytest.mark.django_db

# No case holds the word; the three closest by meaning are listed as partial matches.
NO_CASE_HAS_IT = "DistStoreError"


def marked_words(hit) -> list[str]:
    return (
        [segment.text.lower() for segment in hit.snippet.segments if segment.matched] if hit.snippet else []
    )


def test_no_case_found_by_meaning_alone_can_be_labelled_a_match():
    # The most a case without a lexical match can score: first by meaning, meaning 1.0.
    best = fusion.probability(fusion.features(None, 1, 0.0, 1.0, 1.0))
    assert best < 0.01 < fusion.POSSIBLE_P
    assert fusion.label(best) == fusion.WEAK


@pytest.mark.parametrize(
    ("query", "case_id", "shared"),
    [
        ("layernorm mismatch across TP ranks", "IL-0469", {"rank"}),
        ("HTTP 530 for all API requests", "IL-0520", {"api", "requests", "http"}),
    ],
)
def test_a_possible_match_with_some_of_the_words_shows_them(query, case_id, shared):
    results = search_cases(query=query, facets=False)
    [hit] = [hit for hit in results.hits if hit.case.id == case_id]
    assert hit.confidence == "possible" and hit.why is None
    assert shared <= set(marked_words(hit)), marked_words(hit)


def test_a_case_found_by_meaning_alone_says_so_and_is_weak():
    results = search_cases(query=NO_CASE_HAS_IT, facets=False)
    assert results.total == 0 and len(results.partial_hits) == 3
    for hit in results.partial_hits:
        assert (hit.confidence, hit.matched_terms, marked_words(hit)) == ("weak", (), [])
        assert hit.why == MEANING_ONLY == "Similar in meaning; no query word in this case."


def test_a_case_sharing_words_says_no_more_than_its_words():
    results = search_cases(query="nccl timeout", facets=False)
    assert len(results.hits) >= 5
    for hit in results.hits[:5]:
        # Its words marked, or the term it carries (a case tagged NCCL timeout, spelled otherwise).
        assert hit.why is None and (marked_words(hit) or hit.matched_terms), hit.case.id


@pytest.fixture(scope="module")
def mcp(django_db_blocker) -> InMemoryMcp:
    with django_db_blocker.unblock():
        return InMemoryMcp()


def test_every_door_says_it_in_the_same_words(client, mcp):
    expected = [hit.case.id for hit in search_cases(query=NO_CASE_HAS_IT, facets=False).partial_hits]
    body = client.get("/api/cases/", {"q": NO_CASE_HAS_IT}).json()
    assert [(h["id"], h["confidence"], h["why"]) for h in body["partial_matches"]] == [
        (case_id, "weak", MEANING_ONLY) for case_id in expected
    ]
    tool = mcp.ok("search_incidents", query=NO_CASE_HAS_IT)
    assert [(h["id"], h["confidence"], h["why"]) for h in tool["partial_matches"]] == [
        (case_id, "weak", MEANING_ONLY) for case_id in expected
    ]
    page = client.get("/cases/", {"q": NO_CASE_HAS_IT}).content.decode()
    cards = re.findall(r'<article class="case-card">.*?</article>', page, re.S)
    assert [re.search(r'class="case-id">(IL-\d+)<', card).group(1) for card in cards] == expected
    for card in cards:
        assert text_of(element(card, "p", class_="why")) == MEANING_ONLY


def test_a_hit_sharing_words_has_no_why_at_any_door(client, mcp):
    [api_hit, *_] = client.get("/api/cases/", {"q": "nccl timeout"}).json()["results"]
    [tool_hit, *_] = mcp.ok("search_incidents", query="nccl timeout")["hits"]
    assert api_hit["why"] is None and tool_hit["why"] is None
    page = client.get("/cases/", {"q": "nccl timeout"}).content.decode()
    first_card = re.search(r'<article class="case-card">.*?</article>', page, re.S).group(0)
    assert 'class="why"' not in first_card
    assert "<mark>" in first_card or '<p class="matched">Matched: ' in first_card
