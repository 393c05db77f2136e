"""A case page's "Related cases" badges each say what they are: the weakest computed
neighbours were badged "related" (IL-0473, IL-0493, IL-0432 on /cases/IL-0428), which under
the heading "Related cases", beside "linked by an editor", read as an editor's link; the
footnote explained only the editor's badge."""

from __future__ import annotations

import re

import pytest

from .html import element, text_of

pytestmark = pytest.mark.django_db


def test_every_badge_is_an_editors_link_or_a_degree_of_similarity_the_footnote_names(client):
    html = client.get("/cases/IL-0428").content.decode()
    section = element(html, "section", class_="similar")
    badges = [text_of(b) for b in re.findall(r'<span class="badge[^"]*">.*?</span>', section)]
    assert "somewhat similar" in badges
    assert set(badges) <= {"linked by an editor", "very similar", "similar", "somewhat similar"}
    footnote = text_of(element(section, "p", class_="section-hint"))
    assert all(f"“{badge}”" in footnote for badge in set(badges))
