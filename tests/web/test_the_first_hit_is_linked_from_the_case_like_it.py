"""The card of a case listed as like the first hit links that hit's page.

After a confident first hit its nearest case is listed first among the partial matches
(`nearest_to_first`), and a log's best hit lifts the cases like it; the card said so in
words ("Similar to IL-0459, the first hit.") with the id as plain text, so a reader who
wanted to compare the two had to go back up the page or type the id. The id is now a link
to the case page (`incident_tags.why_linked`), on the search page and on /match/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import search_cases
from incidents.templatetags.incident_tags import why_linked

from .html import element, links

pytestmark = pytest.mark.django_db

LOG = Path(__file__).resolve().parents[2] / "eval" / "logs" / "t2-xid149-nvlink-gb200.log"


def why_of(html: str, case_id: str) -> str:
    """The outer HTML of the `why` line of `case_id`'s card on a rendered page."""
    start = html.index(f'<span class="case-id">{case_id}</span>')
    card = element(html[html.rindex("<article", 0, start) :], "article")
    return element(card, "p", class_="why")


def test_the_search_page_links_the_first_hit_from_its_nearest_case(client):
    # IL-0530 shares no word of the query: the likeness to IL-0459 alone lists it.
    html = client.get("/cases/", {"q": "serialize-image-pulls"}).content.decode()
    partial = element(html, "section", class_="partial-matches")
    assert why_of(partial, "IL-0530") == (
        '<p class="why">Similar to <a href="/cases/IL-0459">IL-0459</a>, the first hit.</p>'
    )
    assert links(why_of(partial, "IL-0530")) == [("/cases/IL-0459", "IL-0459")]


def test_the_words_before_it_stay_as_they_were(client):
    query = "GB200 run freezes mid training, every rank at 100% util, no error, no timeout, no Xid"
    html = client.get("/cases/", {"q": query}).content.decode()
    hit = next(h for h in client.get("/api/cases/", {"q": query}).json()["partial_matches"] if h["like"])
    assert (hit["id"], hit["like"]) == ("IL-0500", "IL-0497")
    # The card says the words its Tagged line does not (`SearchHit.why_beside_tags`), then
    # the sentence with the link.
    [card] = [h for h in search_cases(query=query).partial_hits if h.case.id == "IL-0500"]
    before = card.why_beside_tags.removesuffix("Similar to IL-0497, the first hit.")
    assert before.startswith("Matches: ") and "GB200" in before  # it shares words with the query too
    assert why_of(html, "IL-0500") == (
        f'<p class="why">{before}Similar to <a href="/cases/IL-0497">IL-0497</a>, the first hit.</p>'
    )


def test_the_match_page_links_the_log_s_first_hit(client):
    html = client.post("/match/", {"text": LOG.read_text(encoding="utf-8")}).content.decode()
    hits = element(html, "section", class_="log-hits")
    assert links(why_of(hits, "IL-0499"))[-1] == ("/cases/IL-0498", "IL-0498")
    # The first hit itself is like no other hit: its line links nothing.
    assert links(why_of(hits, "IL-0498")) == []


def test_a_why_is_escaped_and_links_only_the_sentence_the_search_module_writes():
    assert why_linked("Matches: <b>.", None) == "Matches: &lt;b&gt;."
    assert why_linked("Matches: a. Similar to IL-0001, the first hit.", "IL-0001") == (
        'Matches: a. Similar to <a href="/cases/IL-0001">IL-0001</a>, the first hit.'
    )
    # Given a like whose sentence the why does not end with: nothing is linked.
    assert why_linked("Matches: a.", "IL-0001") == "Matches: a."
    assert why_linked(None, "IL-0001") == ""
