"""/affected/: the titles of the cases a version is affected by look like links as in every
other case list (their headline in the link colour): they were links in the body text's
colour, no underline, normal weight, and a new user did not see how to open the case."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STYLE = "e => [getComputedStyle(e).color, getComputedStyle(document.body).color]"


def test_an_affected_case_title_is_in_the_link_colour_of_the_search_results(open_page):
    page = open_page("/affected/?versions=nvidia-nccl-cu12%3D%3D2.18.1")
    title = page.locator("article.case-card .case-title a").first
    assert title.get_attribute("href").startswith("/cases/IL-")
    affected_colour, text_colour = title.locator(".headline").evaluate(STYLE)
    search = open_page("/cases/?q=nccl")
    search_colour, _ = search.locator("article.case-card .case-title a .headline").first.evaluate(STYLE)
    assert affected_colour == search_colour != text_colour
