"""Failure tokens in a pasted log (`patterns.EXTRACTORS`): Xid codes, NCCL results, CUDA
errors, exception types, NCCL/CUDA environment variables, errno and signal names, known
phrases, what a program could not do (`Failed to initialize NVML`) and the message after
`fatal:`, `error:` or `panic:`. Each is found with how it was found (`Evidence.kind`: a
failure, a code name, a setting the log echoes), which decides how much it weighs
(`log_scores`) and whether it names the failure (`log_confidence`); `tokens_to_look_up`
says which are looked up in the cases' full-text index.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator

import re2

from . import errnos
from .log_lines import LineMatch, LogLines
from .log_text import Evidence, unique_lines
from .patterns import EXTRACTORS, GENERIC_TOKENS, Extractor, compile_pattern, options
from .query import Atom, keeps_meaning
from .text import words

MAX_TOKENS = 40
MAX_ERROR_MESSAGES = 10  # of the MAX_TOKENS, messages read after `fatal:` / `error:` / `panic:`

# Tokens every failure of their kind prints, whatever the failure: torchrun's wrapper and its
# summary fields, the CUDA and NCCL debugging hints. Two logs sharing them have not shown the
# same failure, so they are not looked up (`tokens_to_look_up`) and count for nothing in `confidence`.
BOILERPLATE = frozenset(
    t.lower()
    for t in (
        "ChildFailedError",
        "local_rank",
        "error_file",
        "CUDA_LAUNCH_BLOCKING",
        "TORCH_USE_CUDA_DSA",
        "NCCL_DEBUG",
        "TORCH_DISTRIBUTED_DEBUG",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING",
    )
)
# Extractors whose tokens name a setting or a place in code, not a failure.
NAMING_EXTRACTORS = frozenset({"identifier", "env"})
# The extractor of the message after `fatal:` / `error:` / `panic:` (capped, deduplicated).
ERROR_MESSAGE = "error-message"


_EXTRACTORS = [(e, compile_pattern(e.pattern, ignore_case=e.ignore_case)) for e in EXTRACTORS]


def _extractor_set():
    """One RE2 set of every extractor: which of them can match a line, in one scan."""
    matcher = re2.Set.SearchSet(options())
    for extractor in EXTRACTORS:
        matcher.Add(("(?i)" if extractor.ignore_case else "") + extractor.pattern)
    matcher.Compile()
    return matcher


_EXTRACTOR_SET = _extractor_set()


def failure_tokens(lines: dict[str, list[int]], scanned: LogLines | None = None) -> dict[str, Evidence]:
    """Failure token (`patterns.EXTRACTORS`) -> its evidence. `scanned`: the keys of `lines`
    joined, which each extractor scans once (`log_lines.py`; joined here when not given)."""
    scanned = scanned or LogLines(lines)
    found: dict[str, Evidence] = {}
    for line_index, matches in _matches_by_line(scanned):
        line = scanned.lines[line_index]
        numbers = lines[line]
        # A message after `error:` that another failure extractor already read (`CUDA error:
        # an illegal memory access ...`, a `failed to ...` message) is that token, not a second.
        read = [m.span() for e, m in matches if e.name not in (ERROR_MESSAGE, *NAMING_EXTRACTORS)]
        for extractor, match in matches:
            if extractor.name == ERROR_MESSAGE and any(
                start < match.end(1) and match.start(1) < end for start, end in read
            ):
                continue
            value = match.group(1) if match.lastindex else match.group(0)
            span = match.span()
            if extractor.name.startswith("errno"):
                found_errno = errnos.by_number(value) if value.isdigit() else errnos.by_name(value)
                if found_errno is None:
                    continue  # `EPOCH`, `[Errno 999]`: no C library error
                value = found_errno.name  # `[Errno 28]` is ENOSPC, as cases write it
                span = _with_message(line, span, found_errno.message)
            token = extractor.template.format(value.strip())
            if token in GENERIC_TOKENS:
                continue
            key = token if not extractor.ignore_case else token.lower()
            evidence = found.setdefault(key, Evidence())
            evidence.kind = stronger_kind(evidence.kind, _found_as(extractor.name, line, match))
            if extractor.name == "env" and _ASSIGNMENT.match(line[: match.end(1) + 1]):
                evidence.set_by_job = True
            evidence.read_at(line, span)
            for number in numbers:
                evidence.add(number, line)
    return found


def _with_message(line: str, span: tuple[int, int], message: str) -> tuple[int, int]:
    """The place of an errno read at `span` of `line`, reaching over its own `message` when
    the line prints it too (`OSError: [Errno 28] No space left on device`): the number and
    its message are one signature, where the message is also a failure phrase and a code's
    pattern (`log_confidence._counted` counts evidence at one place once). Read as two, a
    checkpoint write's ENOSPC line was a strong hit for a CI pod's /dev/shm case that shares
    nothing else with the log."""
    at = line.lower().find(message.lower()) if message else -1
    if at < 0:
        return span
    return min(span[0], at), max(span[1], at + len(message))


# Extractors whose token's extent is a guess (the free text after `CUDA error:`, `error:` or
# a "could not" marker): in a typed query it runs on into the words after the message
# (`CUDA error: unknown error workCleanupLoop`), which no case quotes that way.
FREE_TEXT_EXTRACTORS = frozenset({"cuda-error", "message", ERROR_MESSAGE})


def signature_tokens(text: str) -> list[str]:
    """The failure tokens `text` shows that name a failure as a program prints it (`failure_tokens`,
    in the order found): codes, exception names, errno and signal names, NCCL results, known
    failure phrases (`Watchdog caught collective operation timeout`); not boilerplate, code
    names or settings, which do not say what failed, nor free text (`FREE_TEXT_EXTRACTORS`)."""
    return [
        token
        for token, evidence in failure_tokens(unique_lines(text)).items()
        if evidence.kind not in (*NAMING_EXTRACTORS, "setting", *FREE_TEXT_EXTRACTORS)
        and token.lower() not in BOILERPLATE
        and words(token)
    ]


def _matches_by_line(scanned: LogLines) -> Iterator[tuple[int, list[tuple[Extractor, LineMatch]]]]:
    """Each line with a failure token, in order, with its matches by extractor (in
    `EXTRACTORS` order), then by place in the line. The extractors' scans are merged as
    they go, so one line's matches are held at a time (a megabyte of identifiers is
    hundreds of thousands of matches)."""

    def stream(order: int) -> Iterator[tuple[int, int, Extractor, LineMatch]]:
        extractor, compiled = _EXTRACTORS[order]
        for line_index, match in scanned.matches(compiled):
            yield line_index, order, extractor, match

    streams = [stream(order) for order in sorted(_EXTRACTOR_SET.Match(scanned.text) or ())]
    merged = heapq.merge(*streams, key=lambda item: (item[0], item[1]))
    for line_index, items in itertools.groupby(merged, key=lambda item: item[0]):
        yield line_index, [(extractor, match) for _, _, extractor, match in items]


# An environment variable given a value where a command starts: `export X=1`, a shell
# trace (`+ export X=1`), a prompt (`$ X=1 python ...`), a prefix before other assignments.
_ASSIGNMENT = re2.compile(
    r"^\s*(?:[+$#>]+\s*)?(?:export\s+|env\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*[A-Z][A-Z0-9_]*=$"
)


# How a token was found, weakest first: as a setting (`tensor_parallel_size=4`,
# `--nproc_per_node=8`), a code name, an environment variable, a message after `error:`
# (capped, `MAX_ERROR_MESSAGES`), an extractor of failures.
_KIND_ORDER = ("", "setting", "identifier", "env", ERROR_MESSAGE)


def _found_as(extractor: str, line: str, match) -> str:
    """The extractor's name, or `setting` for a name given a value (`name=...`, `--name`):
    the configuration a log echoes, which any log of that program shares."""
    start, end = match.span(1) if match.lastindex else match.span()
    if extractor in NAMING_EXTRACTORS and (
        line[end : end + 1] == "=" or line[max(0, start - 2) : start] == "--"
    ):
        return "setting"
    return extractor


_KIND_RANK = {kind: rank for rank, kind in enumerate(_KIND_ORDER)}


def stronger_kind(old: str, new: str) -> str:
    """The more telling of two ways a token was found (`_KIND_ORDER`, an extractor of
    failures above all), `new` when they are as telling."""
    strongest = len(_KIND_ORDER)  # an extractor of failures
    return new if _KIND_RANK.get(new, strongest) >= _KIND_RANK.get(old, strongest) else old


def tokens_to_look_up(found: dict[str, Evidence]) -> list[str]:
    """Of the failure tokens `found` (`failure_tokens`), those looked up in the cases'
    full-text index, at most `MAX_TOKENS`: the others longest first (most words, then by
    name), then the first `MAX_ERROR_MESSAGES` messages after `error:` in log order."""
    # Boilerplate is not looked up: a token every failure of its kind prints would rank the
    # one case that happens to quote it (ChildFailedError) above the failure's own cases.
    # A debugging variable the job itself set (`export CUDA_LAUNCH_BLOCKING=1`) is looked
    # up: it changes how the job runs, and cases about that change name it. Found as a
    # setting, it still counts for nothing in `confidence`. A
    # code name that is mostly stop words (`NO_OTHER_FAILURES` in torchrun's summary) would
    # be the bare word `failures` on PostgreSQL, which drops stop words: left out on both.
    searchable = [
        t
        for t, evidence in found.items()
        if (t.lower() not in BOILERPLATE or evidence.set_by_job)
        and (evidence.kind not in ("identifier", "setting") or keeps_meaning(Atom(tuple(words(t)))))
    ]
    # Messages after `error:` are many in a noisy log and longer than any code: only the
    # first MAX_ERROR_MESSAGES of them (in log order) are looked up, in at most that many of
    # the MAX_TOKENS places, so sixty ERROR lines cannot crowd an Xid code or an exception
    # name out; the other tokens keep the rest, longest first as before.
    messages = [t for t in searchable if found[t].kind == ERROR_MESSAGE][:MAX_ERROR_MESSAGES]
    others = sorted(
        (t for t in searchable if found[t].kind != ERROR_MESSAGE),
        key=lambda t: (-len(words(t)), t),
    )
    return others[: MAX_TOKENS - len(messages)] + messages
