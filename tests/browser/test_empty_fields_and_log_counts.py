"""In Chromium: a search URL with the empty fields a form submits lists what the bare search
lists, with no notice (they were "Sort: must be one of ..." and "Page: must be a whole
number"); and after pasting a log on /match/, the reading's counts hold every line a hit
lists (a hit's "13 matching lines" sat under "8 with a known signature")."""

from __future__ import annotations

import re

import pytest

from tests.conftest import STEP_LINE, VERSION_LINES, WATCHDOG, XID_79_LINE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOG = "\n".join([*VERSION_LINES, WATCHDOG, WATCHDOG, STEP_LINE, XID_79_LINE])


def test_empty_form_fields_are_not_given(open_page):
    bare = open_page("/cases/?symptom=nccl-timeout")
    expected = bare.locator("#result-count").inner_text()
    ids = bare.locator("section.results > .case-card .case-id").all_inner_texts()

    page = open_page("/cases/?symptom=nccl-timeout&q=&sort=&page=&published_after=&published_before=")
    assert page.locator(".note.notice").count() == 0
    assert page.locator("#result-count").inner_text() == expected
    assert page.locator("section.results > .case-card .case-id").all_inner_texts() == ids
    # The page's own links carry the state it understood, without the empty fields.
    page.get_by_role("link", name="Oldest first").click()
    page.wait_for_url(re.compile(r"/cases/\?symptom=nccl-timeout&sort=oldest$"))


def test_the_log_reading_holds_every_line_a_hit_lists(open_page):
    page = open_page("/match/")
    page.get_by_label(re.compile("^Log text")).fill(LOG)
    page.get_by_role("button", name="Find matching cases").click()
    page.wait_for_url(re.compile(r"/match/$"))
    said = page.locator("p.log-reading").inner_text()
    found = re.match(
        r"Read 6 lines of a training job: (\d+) with a failure signature, (\d+) sharing only a name or word "
        r"with a case below; ignored (\d+) with nothing the cases know, 1 repeated\.",
        said,
    )
    assert found, said
    signature, context, ignored = (int(n) for n in found.groups())
    assert signature + context + ignored == 5
    summaries = page.locator("section.log-hits details > summary").all_inner_texts()
    assert summaries
    for summary in summaries:
        listed = int(re.match(r"(\d+) matching lines?$", summary).group(1))
        assert 1 <= listed <= signature + context
    # The repeated watchdog line is one row, at its first line number.
    first_table = page.locator("table.matched-lines").first
    assert first_table.inner_text().count("Watchdog caught") <= 1
