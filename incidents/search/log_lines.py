"""The distinct lines of a pasted log as one text, scanned once per pattern.

Each call of an RE2 pattern from Python costs a few microseconds whatever the line (the
binding encodes the text and builds its match objects in Python). A 200 KB log has about
2,000 distinct lines, and reading each line with every pattern cost most of a log match
(about 60 ms of 85 at 168 cases). Scanned over the lines joined by line breaks, a pattern
costs that once, plus a little per match.

That gives the same matches as scanning each line only for patterns that cannot match a
line break: `[^\\S\\n]` for `\\s`, `\\n` in every negated class, `(?m)` for `^` and `$`.
The built-in patterns (`patterns.EXTRACTORS`, `log_job_kind`'s and `log_versions`' patterns)
are written so; a vocabulary pattern, which anyone may write, is still read line by line.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import Any

# How much of a log is read and how a line is shown: here, not in `logmatch`, so the error
# pages, the paste form and triage use them without importing the matcher (numpy) at start-up.
# The most of a pasted log that is read (longer text is cut).
MAX_LOG_BYTES = 1_000_000
LINE_CHARS = 300  # a matched line as shown, "…" included when it was longer


def shown_line(line: str, chars: int = LINE_CHARS) -> str:
    """The line as a hit shows it: stripped, at most `chars` characters, ending in "…" when
    it was cut, so that a cut figure ("Timeout(ms)=6…") is not read as the whole one."""
    text = line.strip()
    return text if len(text) <= chars else text[: chars - 1] + "…"


class LineMatch:
    """A match found in the joined text, with offsets in its own line (as the same
    pattern's match in that line alone would have)."""

    __slots__ = ("_match", "_offset")

    def __init__(self, match: Any, offset: int):
        self._match = match
        self._offset = offset

    @property
    def lastindex(self) -> int | None:
        return self._match.lastindex

    def group(self, index: int = 0) -> str:
        return self._match.group(index)

    def groups(self) -> tuple[str | None, ...]:
        return self._match.groups()

    def span(self, index: int = 0) -> tuple[int, int]:
        start, end = self._match.span(index)
        if start < 0:  # a group that took no part in the match
            return start, end
        return start - self._offset, end - self._offset

    def start(self, index: int = 0) -> int:
        return self.span(index)[0]

    def end(self, index: int = 0) -> int:
        return self.span(index)[1]


class LogLines:
    """`lines` (distinct, no line breaks in them) joined into one text, in order."""

    def __init__(self, lines: Iterable[str]):
        self.lines = list(lines)
        self.text = "\n".join(self.lines)
        self._starts: list[int] = []
        at = 0
        for line in self.lines:
            self._starts.append(at)
            at += len(line) + 1

    def matches(self, pattern: Any) -> Iterator[tuple[int, LineMatch]]:
        """(line index, match) for every match of the compiled RE2 `pattern`, in text order.
        `pattern` must not match a line break (see the module docstring)."""
        for match in pattern.finditer(self.text):
            index = self._line_of(match.start())
            yield index, LineMatch(match, self._starts[index])

    def lines_matching(self, pattern: Any) -> set[int]:
        """The indexes of the lines in which `pattern` (as for `matches`) finds something.
        One scan: a `search` from each line's start would encode the whole text each time."""
        return {self._line_of(match.start()) for match in pattern.finditer(self.text)}

    def _line_of(self, offset: int) -> int:
        """The index of the line holding `offset` of the joined text."""
        return bisect_right(self._starts, offset) - 1
