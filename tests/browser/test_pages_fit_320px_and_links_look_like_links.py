"""At 320 px no page is wider than the window (every page was 1 px wider, `scrollWidth`
321, its nav row "Cases Topics Vocabulary Stats Match log" touching the edge: a new user's
walkthrough), and a case page's related-case titles look like links: underlined in the
link colour, with a visible focus outline (they were black bold text)."""

from __future__ import annotations

import re

import pytest

from tests.search.test_a_line_repeated_but_for_digits_is_listed_once import log

from .conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = ["/", "/cases/?q=nccl+timeout", "/cases/", "/cases/IL-0428", "/match/", "/topics/", "/stats"]
FITS = "[document.documentElement.scrollWidth, window.innerWidth]"


def wider_than_the_window(page) -> list[str]:
    """The elements sticking out past the window's right edge (for the failure message)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
            .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + e.getBoundingClientRect().right)"""
    )


def test_no_page_is_wider_than_a_320px_window(open_page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for path in PAGES:
        page = open_page(path, width=320, height=700)
        scroll, inner = page.evaluate(FITS)
        assert scroll <= inner == 320, (path, scroll, wider_than_the_window(page))
    page = open_page("/match/", width=320, height=700)
    page.get_by_label(re.compile("^Log text")).fill(log())
    page.get_by_role("button", name="Find matching cases").click()
    page.wait_for_url(re.compile(r"/match/$"))
    scroll, inner = page.evaluate(FITS)
    assert scroll <= inner == 320, ("/match/ answered", scroll, wider_than_the_window(page))
    page.screenshot(path=str(SCREENSHOTS / "match-320.png"))


def test_related_cases_look_like_links_with_a_visible_focus(open_page):
    page = open_page("/cases/IL-0428")
    link = page.locator("a.similar-link").first
    style = link.evaluate(
        "a => { const s = getComputedStyle(a); const body = getComputedStyle(document.body);"
        " return [s.textDecorationLine, s.color, body.color]; }"
    )
    decoration, colour, text_colour = style
    assert decoration == "underline"
    assert colour != text_colour  # the link colour, not the text's
    link.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    outline = link.evaluate("a => [a.matches(':focus-visible'), getComputedStyle(a).outlineStyle]")
    assert outline == [True, "solid"]
