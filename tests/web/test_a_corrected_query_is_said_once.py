"""A misspelt query is searched as corrected, and the page says so once, with the corrected
query as a link: it asked "Did you mean nccl timeout?" beside a note that "nccl timeout" had
already been searched. The corrected query itself gets no correction line."""

from __future__ import annotations

import re
from html import unescape

import pytest

from .html import element, links, text_of

pytestmark = pytest.mark.django_db


def correction_lines(html: str) -> list[str]:
    """The search's notes as read (tags dropped, not spaced)."""
    return [
        unescape(re.sub(r"<[^>]+>", "", p))
        for p in re.findall(r'<p class="(?:did-you-mean|note)">.*?</p>', html)
    ]


def test_a_corrected_query_is_said_once_with_a_link_to_it(client):
    html = client.get("/cases/", {"q": "nccl timout"}).content.decode()
    assert correction_lines(html) == ["Some words are in no case: showing the results for nccl timeout."]
    assert links(element(html, "p", class_="did-you-mean")) == [("/cases/?q=nccl+timeout", "nccl timeout")]
    assert "Did you mean" not in text_of(html)


def test_following_the_link_shows_no_correction(client):
    html = client.get("/cases/?q=nccl+timeout").content.decode()
    assert correction_lines(html) == []
    assert 'value="nccl timeout"' in html
