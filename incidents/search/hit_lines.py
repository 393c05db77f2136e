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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .patterns import SOURCE_FILE_PATTERN, compile_pattern, inside

# Where a line was printed: a source file with the directories before it
# (`torch/distributed/run.py:793`, `transport/net_ib.cc:1696`), as loggers prefix a line.
SOURCE_LOCATION = compile_pattern(r"(?:[\w.-]+/)*" + SOURCE_FILE_PATTERN, ignore_case=False)
_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")

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
    ones shown: each saying one of its names (`says_a_name`), and not the same as a line
    kept before it but for its digits."""
    shown: set[str] = set()
    forms: set[str] = set()
    for line, names in lines:
        form = line.translate(_DIGITS_AS_ZERO)
        if form in forms or not says_a_name(line, names, places):
            continue
        forms.add(form)
        shown.add(line)
    return shown
