"""A log line longer than a hit shows is cut with a visible "…", never mid-figure in silence."""

from __future__ import annotations

import pytest

from incidents.search import match_log
from incidents.search.log_lines import LINE_CHARS, shown_line

pytestmark = pytest.mark.django_db


def test_a_long_line_is_cut_with_an_ellipsis_and_a_short_one_is_kept():
    assert shown_line("  NCCL WARN short line  ") == "NCCL WARN short line"
    long = "x" * (LINE_CHARS - 15) + " Timeout(ms)=600000"
    shown = shown_line(long)
    assert len(shown) == LINE_CHARS and shown.endswith("Timeout(ms)=6…")


def test_matched_lines_of_a_hit_say_when_they_were_cut():
    padding = "detail " * 60
    log = (
        "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE) "
        f"{padding} Timeout(ms)=600000\n"
    )
    hits = match_log(log, limit=3)
    assert hits
    lines = [line.line for hit in hits for line in hit.lines]
    assert lines and all(len(line) <= LINE_CHARS and line.endswith("…") for line in lines)
