"""A search result card's two lines of why it is listed start with words that read apart.

The card said "Matched: Training hangs (topic), Training hang (symptom)" (the query's
vocabulary terms the case carries) right above "Matches: hang, training." (the case's words
that match, the hit's `why`), two lines a reader could not tell apart at a glance (a new
user's walkthrough). The terms' line now says "Tagged:", as `why` names those terms when no
word is marked ("Tagged: NCCL timeout."), and the search help says what each line means.
"""

from __future__ import annotations

import pytest

from incidents.search.results import SearchHit

from .html import element, text_of

pytestmark = pytest.mark.django_db


def card_lines(client, query: str, case_id: str) -> list[str]:
    """The texts of the "why listed" lines of `case_id`'s card among the hits for `query`
    ("" for a line the card does not have)."""
    results = element(client.get("/cases/", {"q": query}).content.decode(), "section", class_="results")
    start = results.index(f'<span class="case-id">{case_id}</span>')
    card = element(results[results.rindex("<article", 0, start) :], "article")
    return [
        text_of(element(card, "p", class_=name)) if f'class="{name}"' in card else ""
        for name in ("matched", "why")
    ]


def test_the_terms_line_says_tagged_and_the_words_line_matches(client):
    tagged, why = card_lines(client, "training hang", "IL-0500")
    assert tagged == "Tagged: Training hangs (topic), Training hang (symptom)"
    hits = client.get("/api/cases/", {"q": "training hang", "page_size": 50}).json()["results"]
    [hit] = [hit for hit in hits if hit["id"] == "IL-0500"]
    # The API's why names the words; the card leaves out those its Tagged line says (the
    # terms' own words): no word is said under both. The query names the term whole, so it
    # is widened to its synonyms, and the card names the one the case says instead.
    assert hit["why"].startswith("Matches: ")
    assert "hang" not in why.lower() and "training" not in why.lower()
    assert why == "Matches: stuck."


def test_no_word_is_said_under_both_tagged_and_matches():
    both = SearchHit(
        case=None,  # type: ignore[arg-type]  # the card's lines read no case
        score=0.5,
        snippet=None,
        matched_terms=("Training hang",),
        matched_vocabulary=(("symptom", "Training hang"),),
        why="Matches: hanging, NCCL 2.18.1, rank. Similar to IL-0449, the first hit.",
    )
    assert both.why_beside_tags == "Matches: NCCL 2.18.1, rank. Similar to IL-0449, the first hit."


def test_the_search_help_says_what_each_line_means(client):
    help_text = text_of(element(client.get("/cases/").content.decode(), "details", class_="search-help"))
    assert (
        "Each hit says why it is listed: Tagged: the terms of the vocabulary your words name that "
        "the case carries, each with its kind (topic, symptom, component ...); Matches: the "
        "case's own words that match yours, as written in it."
    ) in help_text


def hit(why: str) -> SearchHit:
    return SearchHit(
        case=None,  # type: ignore[arg-type]  # the card's lines read no case
        score=0.5,
        snippet=None,
        matched_terms=("NCCL timeout",),
        matched_vocabulary=(("symptom", "NCCL timeout"),),
        why=why,
    )


def test_a_why_naming_the_tagged_terms_is_not_said_twice_on_the_card():
    # Said in full by the card's "Tagged: NCCL timeout (symptom)" line above it.
    assert hit("Tagged: NCCL timeout.").why_beside_tags is None
    assert hit("Cites NVIDIA/nccl#1116. Tagged: NCCL timeout.").why_beside_tags == "Cites NVIDIA/nccl#1116."
    assert hit("Matches: watchdog timeouts.").why_beside_tags == "Matches: watchdog timeouts."
