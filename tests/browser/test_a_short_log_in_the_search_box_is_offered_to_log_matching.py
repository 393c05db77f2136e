"""Three lines of an NCCL watchdog log pasted into the search box, shorter than the 500
characters past which nothing is searched: the browser's one-line box puts a space for each
line break (a search input keeps none), the search runs, and the page offers the lines to log
matching, which finds the watchdog's error code (`selectors.pasted_log.looks_like_log`)."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOG = (
    "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout\n"
    "[rank3]:[E ProcessGroupNCCL.cpp:1413] [PG 0 Rank 3] Timeout at NCCL work: 2841\n"
    "terminate called after throwing an instance of 'c10::DistBackendError'"
)


def test_a_short_pasted_log_is_searched_and_offered_to_log_matching(open_page):
    page = open_page("/cases/")
    page.locator("#q").fill(LOG)
    assert page.locator("#q").input_value() == LOG.replace("\n", " ")  # as the box sends it
    page.locator("#q").press("Enter")
    page.wait_for_url(re.compile(r"/cases/\?q="))
    assert page.locator("#result-count").is_visible()  # searched
    offer = page.locator(".log-offer")
    assert offer.inner_text().startswith("These lines look like a log")
    offer.get_by_role("button", name="Match these lines as a log").click()
    page.wait_for_url("**/match/")
    assert "ProcessGroupNCCL watchdog timeout" in page.locator("main").inner_text()
