"""The /match/ page said e.g. "Read 17 lines: 8 with a known signature; ignored 9 with nothing
the cases know" above a case with "13 matching lines": the reading counted each distinct
line once and called a line naming only a component (or a rare word a case shares) "nothing
the cases know", while a hit listed those lines too, and a repeated line at every number it
had. Now one engine (`logmatch.read_log`) counts for all three doors: a hit lists each
distinct line once, the reading counts the lines a hit lists without a signature as context,
and signature + context + ignored + repeated + blank = read."""

from __future__ import annotations

import json
import re

import pytest

from incidents.search import read_log
from tests.conftest import STEP_LINE, VERSION_LINES, WATCHDOG, XID_79_LINE
from tests.mcp.conftest import InMemoryMcp

from .html import element, text_of

pytestmark = pytest.mark.django_db

# Every rank prints the watchdog line: the log repeats it, each copy read once.
LOG = "\n".join([*VERSION_LINES, WATCHDOG, "", WATCHDOG, STEP_LINE, WATCHDOG, XID_79_LINE])


def test_the_counts_add_up_and_cover_every_line_a_hit_lists():
    reading = read_log(LOG, limit=10)
    assert reading.hits
    assert (reading.lines_read, reading.lines_repeated, reading.lines_blank) == (8, 2, 1)
    assert (
        reading.lines_with_signature + reading.lines_context + reading.lines_ignored
        == reading.lines_read - reading.lines_repeated - reading.lines_blank
    )
    for hit in reading.hits:
        texts = [line.line for line in hit.lines]
        assert len(texts) == len(set(texts)), "a distinct line is listed once"
        assert len(texts) <= reading.lines_with_signature + reading.lines_context
    # The repeated watchdog line is listed at its first number only.
    watchdog_numbers = {
        line.line_number for hit in reading.hits for line in hit.lines if "Watchdog" in line.line
    }
    assert watchdog_numbers == {3}


def test_a_limit_of_one_counts_the_context_of_that_hit_only():
    reading = read_log(LOG, limit=1)
    [hit] = reading.hits
    listed = {line.line for line in hit.lines}
    with_signature = {line.line for line in hit.lines if "Watchdog" in line.line or "Xid" in line.line}
    assert reading.lines_context == len(listed - with_signature)


def test_the_page_words_the_counts_so_that_they_agree(client):
    html = client.post("/match/", {"log": LOG}).content.decode()
    reading = read_log(LOG, limit=10)
    said = text_of(element(html, "p", class_="log-reading"))
    ignored = f"ignored {reading.lines_ignored} with nothing the cases know"
    assert said.startswith(
        f"Read 8 lines of a training job: {reading.lines_with_signature} with a failure signature, "
        f"{reading.lines_context} sharing only a name or word with a case below; {ignored}, "
        "2 repeated and 1 blank."
    ), said
    shown = [int(n) for n in re.findall(r"<summary>(\d+) matching lines?</summary>", html)]
    assert shown == [len(hit.lines) for hit in reading.hits]
    assert max(shown) <= reading.lines_with_signature + reading.lines_context


def test_the_api_and_mcp_give_the_same_lines(client):
    body = client.post(
        "/api/match", json.dumps({"text": LOG, "limit": 5}), content_type="application/json"
    ).json()
    reading = read_log(LOG, limit=5)
    assert body["reading"] == {
        "lines_read": 8,
        "lines_with_signature": reading.lines_with_signature,
        "lines_context": reading.lines_context,
        "lines_ignored": reading.lines_ignored,
        "lines_repeated": 2,
        "lines_blank": 1,
        "job_kind": reading.job_kind,
    }
    api_lines = {hit["id"]: [line["line_number"] for line in hit["lines"]] for hit in body["results"]}
    assert api_lines == {hit.case.id: [line.line_number for line in hit.lines] for hit in reading.hits}
    tool = InMemoryMcp().ok("match_log", text=LOG, limit=5)
    for hit in tool["hits"]:
        numbers = [line["line_number"] for line in hit["matched_lines"]]
        assert sorted(numbers) == sorted(set(numbers))
        assert set(numbers) <= set(api_lines[hit["id"]])
