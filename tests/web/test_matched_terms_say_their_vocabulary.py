"""A search hit's "Tagged:" line (once "Matched:") names each term with its vocabulary.

Two vocabularies name a term alike: the topic "Training hangs" and the symptom tag
"Training hang", and "Silent data corruption" is both a topic and a symptom tag. Both are
meant (a kind of failure; what was seen), and a query naming one names the other. The hit
kept only the terms' names, so the page read "Matched: Training hangs, Training hang" and
"Matched: Silent data corruption, Silent data corruption", and the API, MCP and the `why`
("Tagged: ...") gave the same name twice (a new user's walkthrough). The hit now keeps
each term's facet, which the page names, and lists a name once where only names are given.
"""

from __future__ import annotations

import pytest

from .html import element, text_of

pytestmark = pytest.mark.django_db


def matched_line(client, query: str, case_id: str) -> str:
    """The "Tagged: ..." text of `case_id`'s card among the hits for `query`."""
    results = element(client.get("/cases/", {"q": query}).content.decode(), "section", class_="results")
    start = results.index(f'<span class="case-id">{case_id}</span>')
    card = results[results.rindex("<article", 0, start) :]
    return text_of(element(card, "p", class_="matched"))


def test_a_topic_and_a_symptom_named_alike_each_say_which_they_are(client):
    line = matched_line(client, "training hang", "IL-0500")
    assert line == "Tagged: Training hangs (topic), Training hang (symptom)"


def test_one_name_in_two_vocabularies_is_two_named_terms(client):
    line = matched_line(client, "silent data corruption", "IL-0566")
    assert line == "Tagged: Silent data corruption (topic), Silent data corruption (symptom)"


def test_the_api_lists_a_shared_name_once(client):
    hits = client.get("/api/cases/", {"q": "silent data corruption", "page_size": 50}).json()["results"]
    [hit] = [hit for hit in hits if hit["id"] == "IL-0566"]
    assert hit["matched_terms"] == ["Silent data corruption"]
