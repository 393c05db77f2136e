"""A pasted log as log matching reads it (`logmatch.read_log`): decoded text, its lines, its
distinct non-blank lines with their numbers, and where on them a piece of evidence was read.

Logs repeat lines a lot (every rank prints the same warning), so each distinct line is read
once and remembers its first `LINES_PER_EVIDENCE` line numbers. No RE2, no database: the
finders (`log_tokens`, `log_terms`, `log_versions`, `log_job_kind`) read what this gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .log_lines import MAX_LOG_BYTES, LogLines

# Of a piece of evidence (or a distinct line), the line numbers kept: its first ones.
LINES_PER_EVIDENCE = 20


def decode_log(text: str | bytes) -> str:
    """Text of at most `MAX_LOG_BYTES` UTF-8 bytes: undecodable bytes become U+FFFD,
    NUL and other control characters (but tabs and newlines) become spaces."""
    if isinstance(text, bytes):
        data = text[:MAX_LOG_BYTES]
    else:
        data = text.encode("utf-8", "replace")[:MAX_LOG_BYTES]
    decoded = data.decode("utf-8", "replace")
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", " ", decoded).replace("\r", "")


def physical_lines(text: str) -> list[str]:
    """The lines of `text`, split at "\n" only (as editors and `wc -l` count them): a final
    newline ends the last line rather than starting an empty one."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()
    return lines


def unique_lines(text: str) -> dict[str, list[int]]:
    """Each distinct non-blank line -> its first line numbers (1-based, at most
    `LINES_PER_EVIDENCE`), in the order the lines first appear (logs repeat lines a lot)."""
    seen: dict[str, list[int]] = {}
    for number, line in enumerate(physical_lines(text), start=1):
        if not line.strip():
            continue
        numbers = seen.get(line)
        if numbers is None:
            seen[line] = [number]
        elif len(numbers) < LINES_PER_EVIDENCE:
            numbers.append(number)
    return seen


@dataclass(frozen=True)
class LogText:
    """A pasted log's lines (`read_text`): the counts `LogReading` reports and the distinct
    lines every finder reads."""

    lines: dict[str, list[int]]  # distinct non-blank line -> its first numbers (`unique_lines`)
    scanned: LogLines  # the keys of `lines` joined, each pattern scanning them once
    lines_read: int  # lines in the text (after the `MAX_LOG_BYTES` cut)
    blank: int  # of them, blank or only white space
    repeated: int  # of them, repeating an earlier line (read once)


def read_text(text: str | bytes) -> LogText:
    """`text` (str or bytes, cut at `MAX_LOG_BYTES`, `decode_log`) as lines."""
    decoded = decode_log(text)
    every = physical_lines(decoded)
    lines = unique_lines(decoded)
    blank = sum(1 for line in every if not line.strip())
    return LogText(
        lines=lines,
        scanned=LogLines(lines),
        lines_read=len(every),
        blank=blank,
        repeated=max(len(every) - blank - len(lines), 0),
    )


@dataclass
class Evidence:
    """Where the log shows one piece of evidence (a failure token, a term, a component
    version, a rare word): its first lines and where in them it was read."""

    # (line number, line) of its first `LINES_PER_EVIDENCE` distinct lines, each line once at
    # its first number: a line the log repeats word for word (every rank printing it) is one
    # line, so repeats neither take the places of the lines after them nor count twice.
    lines: list[tuple[int, str]] = field(default_factory=list)
    # Line -> the numbers it was read at (at most `LINES_PER_EVIDENCE`): how many lines of the
    # log each of `lines` stands for (`LogLine.occurrences`).
    numbers: dict[str, set[int]] = field(default_factory=dict)
    # How a token was found, the most telling way (`log_tokens.stronger_kind`): the
    # extractor's name (`xid`, `exception`, `phrase`, `env`, `identifier`, ...) or `setting`.
    kind: str = ""
    # The job itself set this environment variable (`export CUDA_LAUNCH_BLOCKING=1`), as
    # opposed to a hint that mentions it (`consider passing CUDA_LAUNCH_BLOCKING=1`).
    set_by_job: bool = False
    # Where a token or version was read in each of its first lines (line -> [start, end)
    # spans of the extractor's whole match): its places (`log_confidence.Shared.places`).
    # Terms, found by a set of patterns that says which matched but not where, are searched
    # again instead (`log_hits.Spans`).
    at: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def add(self, number: int, line: str) -> None:
        """Record one reading at line `number` (1-based) holding `line`: a line not yet
        recorded is added at that number (the finders read a line's numbers in order, so its
        first), a line already recorded only counts the number."""
        numbers = self.numbers.get(line)
        if numbers is None:
            if len(self.lines) >= LINES_PER_EVIDENCE:
                return
            numbers = self.numbers[line] = set()
            self.lines.append((number, line))
        if len(numbers) < LINES_PER_EVIDENCE:
            numbers.add(number)

    def read_at(self, line: str, span: tuple[int, int]) -> None:
        """Record that the evidence was read at `span` of `line` (its first lines, a few spans each)."""
        spans = self.at.get(line)
        if spans is None and len(self.at) < LINES_PER_EVIDENCE:
            spans = self.at[line] = []
        if spans is not None and len(spans) < LINES_PER_EVIDENCE and span not in spans:
            spans.append(span)


def evidence_lines(
    lines: dict[str, list[int]], signature_lines: set[str], failure_lines: set[str]
) -> list[str]:
    """The log's lines that carry evidence, in log order: those naming the failure first,
    then those with only code names or settings."""
    ordered = [line for line in lines if line in failure_lines]
    ordered += [line for line in lines if line in signature_lines and line not in failure_lines]
    return ordered
