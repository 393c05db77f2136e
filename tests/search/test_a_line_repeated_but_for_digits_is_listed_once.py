"""A log hit lists a line once however often the log repeats it but for its digits, with
how many lines it stands for: a 200-line torchrun log's first hit showed "34 matching
lines", 20 of them `Worker group FAILED. 3/3 attempts left; will restart worker group` at
different times, each tagged Job interruption (a new user's walkthrough). The page, the
API's `matched_lines` and MCP `match_log` read the same `LogLine.occurrences`."""

from __future__ import annotations

import pytest

from incidents.search import read_log
from incidents.search.hit_lines import fold_repeats
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

WATCHDOG = (
    "[rank3]:[E1207 05:36:{s:02d}.000{p} ProcessGroupNCCL.cpp:1269] Watchdog caught collective operation"
    " timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600{p} milliseconds"
)
RESTART = (
    "[2026-12-07 05:{m:02d}:{s:02d}] E1207 05:36:26.000{p} 140023 torch/distributed/elastic/agent/"
    "server/api.py:680] [default] Worker group FAILED. 3/3 attempts left; will restart worker group"
)
XID = "NVRM: Xid (PCI:0000:9b:00): {code}, pid={p}, GPU has fallen off the bus."


def log() -> str:
    lines = [WATCHDOG.format(s=s, p=100 + s) for s in range(4)]
    lines += [RESTART.format(m=36 + s // 60, s=s % 60, p=170 + s) for s in range(20)]
    lines += [XID.format(code=79, p=4121), XID.format(code=79, p=4122)]
    return "\n".join(lines) + "\n"


def test_lines_alike_but_for_digits_with_the_same_terms_fold_into_the_first():
    lines = [
        ("a", "12:00:01 Worker group FAILED. 3/3 attempts left", ["Job interruption", "SeqNum"], 1),
        ("b", "Xid 79", ["Xid 79"], 2),
        ("c", "12:00:07 Worker group FAILED. 2/3 attempts left", ["Job interruption"], 1),
        ("d", "Xid 48", ["Xid 48"], 1),  # alike but for digits, yet another signature
        ("e", "Xid 78", ["Xid 79", "Xid 78"], 1),  # more names than the first: its own row
    ]
    assert fold_repeats(lines) == [
        ("a", "12:00:01 Worker group FAILED. 3/3 attempts left", ["Job interruption", "SeqNum"], 2),
        ("b", "Xid 79", ["Xid 79"], 2),
        ("d", "Xid 48", ["Xid 48"], 1),
        ("e", "Xid 78", ["Xid 79", "Xid 78"], 1),
    ]


def test_every_door_lists_a_repeated_line_once_with_its_count(client):
    mcp = InMemoryMcp()
    text = log()
    # 20: IL-0615 (a hang sharing the watchdog's lines only) comes after the Xid 79 cases and
    # the first one's similar cases (`log_scores.ROOT_FACTOR`), 12th.
    reading = read_log(text, limit=20)
    rows = {hit.case.id: [(line.line_number, line.occurrences) for line in hit.lines] for hit in reading.hits}
    # The watchdog's four lines are one row standing for 4, the 20 restarts one standing for
    # 20, the two Xid 79 lines (other pids) one standing for 2.
    assert rows["IL-0444"] == [(1, 4), (5, 20), (25, 2)]
    assert rows["IL-0523"] == [(25, 2)]
    # IL-0615 shares rare words read on the watchdog's first line only: its repeats, with
    # fewer names, are still its repeats.
    assert rows["IL-0615"] == [(1, 4)]

    api = client.post("/api/match", {"text": text, "limit": 10}, content_type="application/json").json()
    first = reading.hits[0]
    [api_first] = [h for h in api["results"] if h["id"] == first.case.id]
    assert [(m["line_number"], m["occurrences"]) for m in api_first["matched_lines"]] == [
        (line.line_number, line.occurrences) for line in first.lines
    ]
    tool = mcp.ok("match_log", text=text, limit=10)
    [tool_first] = [h for h in tool["hits"] if h["id"] == first.case.id]
    assert [(m["line_number"], m["occurrences"]) for m in tool_first["matched_lines"]] == [
        (line.line_number, line.occurrences) for line in first.lines[:5]
    ]
    page = client.post("/match/", {"text": text}).content.decode()
    assert '<td data-label="Line"><span>1 <span class="repeats">×4<span class="sr-only">' in page
