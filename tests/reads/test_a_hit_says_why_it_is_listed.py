"""A search hit says why it is listed at every door: the words it shares with the query
marked in its snippet, the vocabulary terms it matched, and `why`, in words, on every hit
(`results.why_listed`: its matching words and terms; for a case found by meaning alone,
no query word in it, `results.MEANING_ONLY`), the same on the page, in `GET /api/cases/`
and in `search_incidents`.

A walkthrough found `why` null on every ordinary hit while the README promised "why it
matched": it was set for a case found by meaning alone only. Every ranked hit now has one;
a browsed list (no query) has none, nothing having been asked.

Two reviews saw hits with no reason shown. A case holding only some of the query's words
got a snippet without any marked word (SQLite read snippets only from rows holding every
word; PostgreSQL's ts_headline found no fragment covering the whole query): it now shows
the words it shares. A case found by meaning alone is labelled weak, as calibration says
(`fusion.WEIGHTS`: such a case cannot reach `POSSIBLE_P`), and now says why it is there."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from incidents.search import fusion, search_cases
from incidents.search.results import MEANING_ONLY, NAMED_BY_ID, why_listed
from incidents.search.why_words import matched_words
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
    assert hit.confidence == "possible"
    assert shared <= set(marked_words(hit)), marked_words(hit)
    assert hit.why.startswith("Matches: ")


def test_a_case_found_by_meaning_alone_says_so_and_is_weak():
    results = search_cases(query=NO_CASE_HAS_IT, facets=False)
    assert results.total == 0 and len(results.partial_hits) == 3
    for hit in results.partial_hits:
        assert (hit.confidence, hit.matched_terms, marked_words(hit)) == ("weak", (), [])
        assert hit.why == MEANING_ONLY == "Similar in meaning; no query word in this case."


def test_a_case_sharing_words_says_which_in_why():
    results = search_cases(query="nccl timeout", facets=False)
    assert len(results.hits) >= 5
    for hit in results.hits[:5]:
        # Its words marked, or the term it carries (a case tagged NCCL timeout, spelled otherwise).
        assert marked_words(hit) or hit.matched_terms, hit.case.id
        # The meaningful words marked, as the case writes them (`why_words.matched_words`,
        # tested in tests/search/test_why_names_meaningful_words.py), its snippet's then its
        # title's (a title word the passage lacks: PostgreSQL marks `collectives` in
        # IL-0615's); the terms only when none is marked (they are in `matched_terms` beside
        # it, at every door).
        words = matched_words(hit.snippet)
        if hit.why == "Tagged: NCCL timeout.":
            assert not words, hit.case.id
            continue
        assert hit.why.startswith("Matches: ") and hit.why.endswith("."), hit.case.id
        named = hit.why.removeprefix("Matches: ").removesuffix(".").split(", ")
        snippet_words = words[:5]
        assert named[: len(snippet_words)] == snippet_words, hit.case.id
        for word in named[len(snippet_words) :]:
            assert word.lower() in hit.case.title.lower(), (hit.case.id, word)


def test_the_first_hits_say_it_in_these_words():
    hits = search_cases(query="vLLM hangs in NCCL all-reduce", facets=False).hits
    assert hits[0].case.id == "IL-0463"
    # The databases cut and mark snippets their own way: ts_headline marks `all` and `reduce`
    # (it gave "Matches: all, reduce, ..."), named whole as FTS5 marks them.
    assert hits[0].why == (
        "Matches: all-reduce, NCCL, hang, vLLM, all_reduce."
        if connection.vendor == "postgresql"
        else "Matches: hang, all-reduce, NCCL, vLLM."
    )
    assert hits[0].matched_terms == ("vLLM", "NCCL")


def test_a_case_carrying_a_term_but_no_marked_word_names_the_term():
    assert why_listed(None, ["NCCL timeout"]) == "Tagged: NCCL timeout."
    assert why_listed(None, [], share=1.0) == "Has every word of the query."
    assert why_listed(None, [], share=0.5) == "Has some of the query's words."


def test_a_case_named_by_its_id_or_a_record_it_cites_says_so():
    [hit] = search_cases(query="IL-0428", facets=False).hits
    assert hit.why == NAMED_BY_ID == "The query names this case by its id."
    [hit] = search_cases(query="NVIDIA/nccl#1116", facets=False).hits
    assert hit.why == "Cites NVIDIA/nccl#1116."


def test_a_browsed_list_has_no_why():
    assert {hit.why for hit in search_cases(query="", facets=False).hits} == {None}


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


def test_a_hit_sharing_words_says_why_at_every_door(client, mcp):
    hits = search_cases(query="nccl timeout", facets=False).hits[:10]
    expected = [(hit.case.id, hit.why) for hit in hits]
    assert all(why for _, why in expected)
    body = client.get("/api/cases/", {"q": "nccl timeout"}).json()
    assert [(h["id"], h["why"]) for h in body["results"][:10]] == expected
    tool = mcp.ok("search_incidents", query="nccl timeout")
    assert [(h["id"], h["why"]) for h in tool["hits"][:10]] == expected
    # The page's card says it under its "Tagged:" line, without repeating that line's terms
    # (`why_beside_tags`): no why paragraph when the why only named them.
    page = client.get("/cases/", {"q": "nccl timeout"}).content.decode()
    cards = re.findall(r'<article class="case-card">.*?</article>', page, re.S)[:10]
    assert [
        (
            re.search(r'class="case-id">(IL-\d+)<', card).group(1),
            text_of(element(card, "p", class_="why")) if 'class="why"' in card else None,
        )
        for card in cards
    ] == [(hit.case.id, hit.why_beside_tags) for hit in hits]


def test_a_browsed_list_has_no_why_at_any_door(client):
    assert {h["why"] for h in client.get("/api/cases/").json()["results"]} == {None}
    assert 'class="why"' not in client.get("/cases/").content.decode()
