"""A case card says in words which chips are symptoms and which are topics: the symptom
tag "Training hang" and the topic "Training hangs" sat side by side in one list, told
apart only by their pink and blue (a new user's walkthrough). Each kind now has a visible
label before its chips, and each chip's accessible name starts with its kind."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_card_names_the_kind_of_each_chip(open_page):
    page = open_page("/cases/?q=training+hang")
    card = page.locator("article.case-card", has=page.locator(".case-id", has_text="IL-0500"))
    symptom = card.get_by_role("link", name="Symptom: Training hang", exact=True)
    topic = card.get_by_role("link", name="Topic: Training hangs", exact=True)
    assert symptom.is_visible() and topic.is_visible()
    kinds = card.locator(".tags-kind")
    assert kinds.all_inner_texts() == ["Symptom", "Topic"]  # one of each
    # Each label stands on the chips' row, before its first chip.
    for kind, chip in zip(kinds.all(), [card.locator("a.symptom").first, topic], strict=True):
        label, first = kind.bounding_box(), chip.bounding_box()
        assert label is not None and first is not None
        assert label["x"] + label["width"] <= first["x"]
        assert abs((label["y"] + label["height"] / 2) - (first["y"] + first["height"] / 2)) < 6
