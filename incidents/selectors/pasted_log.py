"""Whether text typed or pasted into the search box reads as log lines, for the page to offer
log matching (`/match/`), which reads a log line by line, beside the search's results.

Pure Python over the text; no database. Only the search page asks: the API and the MCP
tools name `POST /api/match` and `match_log` in their own descriptions.
"""

from __future__ import annotations

import re

# What marks a line as a log's rather than words a person typed: a time or date stamp, a
# kernel stamp (`[ 1234.5678]`), a level (`ERROR`, `W0109`, `[E ProcessGroupNCCL.cpp:616]`),
# a rank prefix (`[rank3]:`, `[default3]:`), an exception or error code (`DistBackendError`,
# `CUDA error:`, `Xid 79`, `errno`), a traceback's lines, a place in source code
# (`engine.py:542`, `enqueue.cc:968`: a stack dump's frames).
_LOG_MARK = re.compile(
    r"\b\d{1,2}:\d{2}:\d{2}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b"
    r"|^\s*\[\s*\d+\.\d+\]"
    r"|\b(?:ERROR|WARN|WARNING|FATAL|CRITICAL|INFO|DEBUG)\b"
    r"|(?:^|\s)[EWIF]\d{4}\s"
    r"|\[[EWIF] \w"
    r"|\[(?:rank|default)\d+\]:"
    r"|\b[A-Z]\w*(?:Error|Exception)\b"
    r"|\berror:|\bXid\b|\berrno\b|^Traceback\b|^\s+File \"|\bwhat\(\):"
    r"|\b\w+\.(?:py|cc|cpp|cu|c|h|hpp|go|rs):\d+",
    re.MULTILINE,
)
# What starts a log's line, found more than once in a text of one line: a paste whose line
# breaks a browser's one-line search box dropped (Chromium puts a space for each).
_LINE_START = re.compile(r"\b\d{1,2}:\d{2}:\d{2}\b|\[(?:rank|default)\d+\]:")
# Lines (of two or more) with a log's mark that make a text a log.
MIN_MARKED_LINES = 2


def looks_like_log(text: str) -> bool:
    """Whether `text` reads as log lines: of its non-blank lines, at least
    `MIN_MARKED_LINES` carry a log's mark (a time stamp, a level, a rank prefix, an error
    code or exception name, a traceback line); one line alone, when it holds that many
    line starts (time stamps, rank prefixes: lines joined by a one-line box). Words typed
    with one error code (`NCCL error 12 on RoCE`) or two lines of words are not a log."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= MIN_MARKED_LINES:
        return sum(1 for line in lines if _LOG_MARK.search(line)) >= MIN_MARKED_LINES
    return len(_LINE_START.findall(text)) >= MIN_MARKED_LINES
