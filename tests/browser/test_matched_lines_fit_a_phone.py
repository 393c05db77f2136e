"""On a 375 px phone the matched-lines table of /match/ shows each line's signature without
scrolling sideways: the table scrolled inside its box and the Signature column was off
screen past a long log line (a new user's walkthrough). Each row is a card there, its
number, text and signature stacked. And a line the log repeats but for its digits is one
row with how many it stands for ("×20")."""

from __future__ import annotations

import re

import pytest

from tests.search.test_a_line_repeated_but_for_digits_is_listed_once import log

from .conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def paste(page, text: str) -> None:
    page.get_by_label(re.compile("^Log text")).fill(text)
    page.get_by_role("button", name="Find matching cases").click()
    page.wait_for_url(re.compile(r"/match/$"))


def test_every_signature_is_on_screen_at_375px(open_page):
    page = open_page("/match/", width=375, height=800)
    paste(page, log())
    table = page.locator("table.matched-lines").first
    wrap = page.locator(".table-wrap").first
    assert wrap.evaluate("box => box.scrollWidth <= box.clientWidth")
    signatures = table.locator('td[data-label="Signature"]')
    assert signatures.count() == 3  # watchdog, the restarts and Xid 79, one row each
    for index in range(signatures.count()):
        box = signatures.nth(index).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
        assert signatures.nth(index).is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    numbers = table.locator('td[data-label="Line"]').all_inner_texts()
    assert [n.split("\n")[0] for n in numbers] == ["1 ×4", "5 ×20", "25 ×2"]
    table.screenshot(path=str(SCREENSHOTS / "matched-lines-375.png"))


def test_the_table_keeps_its_columns_on_a_desktop(open_page):
    page = open_page("/match/")
    paste(page, log())
    table = page.locator("table.matched-lines").first
    assert table.locator("thead").is_visible()
    assert table.locator("thead th").all_inner_texts() == ["Line", "Text", "Signature"]
