"""Which context lines a log hit shows (`logmatch.read_log`): of the lines that share only a
component's name with the case (`NCCL INFO ...`, a PyTorch launcher's line), those that say
something an engineer reading the evidence can use.

A hit lists every line carrying its evidence. Its context lines came after them, all of
them: a torchrun job's log listed the launcher's banner (`*****`, `Setting OMP_NUM_THREADS
environment variable ...`) and its blank lines under every PyTorch case, since each is
printed by `torch/distributed/run.py`, whose path names PyTorch; and twelve `NCCL INFO
Channel 00/16 ...` lines differing in their numbers only filled a hit's first places
(a new user's walkthrough). Left out now: a context line whose shared names are all read in
where it was printed (the logger's source path), and one that repeats a context line shown
already but for its digits (the first stands for them). The ranking is unchanged: context
still weighs (`log_scores.CONTEXT_WEIGHT`); only what is shown is trimmed.

Any listed line repeating another but for its digits (timestamps, pids, ranks, `3/3
attempts left`) with the same terms is listed once, at its first number, with how many
lines it stands for (`fold_repeats`): a torchrun log's 20 `Worker group FAILED. 3/3
attempts left; will restart worker group` lines, each at its own time, filled 20 of a
hit's 34 rows (a new user's walkthrough).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from .patterns import SOURCE_FILE_PATTERN, compile_pattern, inside

# Where a line was printed: a source file with the directories before it
# (`torch/distributed/run.py:793`, `transport/net_ib.cc:1696`), as loggers prefix a line.
SOURCE_LOCATION = compile_pattern(r"(?:[\w.-]+/)*" + SOURCE_FILE_PATTERN, ignore_case=False)
_DIGITS = re.compile(r"\d+")

# (line, name) -> the [start, end) spans where `name` is read in `line`.
Places = Callable[[str, str], list[tuple[int, int]]]


def printed_at(line: str) -> list[tuple[int, int]]:
    """The [start, end) spans of the source locations `line` names (`SOURCE_LOCATION`)."""
    return [match.span() for match in SOURCE_LOCATION.finditer(line)]


def says_a_name(line: str, names: Iterable[str], places: Places) -> bool:
    """Whether `line` reads one of `names` in what it says, not only in the source path
    of where it was printed. A name whose place is not known (not found as written) counts
    as said."""
    locations = printed_at(line)
    for name in names:
        found = places(line, name)
        if not found or not locations or any(not inside(span, locations) for span in found):
            return True
    return False


def context_shown(lines: Iterable[tuple[str, list[str]]], places: Places) -> set[str]:
    """Of a hit's context lines, in log order (line, the names it shares with the case), the
    ones shown: each saying one of its names (`says_a_name`). Repeats but for digits are
    folded with the signature lines' (`fold_repeats`)."""
    return {line for line, names in lines if says_a_name(line, names, places)}


def but_for_digits(line: str) -> str:
    """`line` with every run of digits read as one 0: two lines with the same form differ
    only in their numbers, of any length (`12:00:01 ... 3/3 attempts` and `12:00:07 ...
    2/3 attempts`; `[rank 9]` and `[rank 10]`)."""
    return _DIGITS.sub("0", line)


Key = TypeVar("Key")


def fold_repeats(lines: Iterable[tuple[Key, str, list[str], int]]) -> list[tuple[Key, str, list[str], int]]:
    """`lines` (key, line, its names, how many lines of the log it is) in the order listed,
    each line repeating an earlier one but for its digits, with none but that one's names,
    left out and counted in that earlier one's number: (key, line, names, occurrences) in
    the same order. The names are part of the sameness: `Xid 79` and `Xid 48` lines differ
    only in digits, yet they are two signatures; a rare word read on a line's first
    occurrence only leaves its repeats fewer names, and they are still its repeats."""
    kept: list[list] = []
    by_form: dict[str, list[list]] = {}
    for key, line, names, count in lines:
        alike = by_form.setdefault(but_for_digits(line), [])
        first = next((entry for entry in alike if set(names) <= set(entry[2])), None)
        if first is not None:
            first[3] += count
            continue
        entry = [key, line, names, count]
        alike.append(entry)
        kept.append(entry)
    return [(key, line, names, count) for key, line, names, count in kept]
