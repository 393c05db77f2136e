"""Log matching scans a log's distinct lines joined into one text, once per built-in
pattern (`log_lines.LogLines`): every match found there is the match the pattern finds in
that line alone, with the same offsets, so no token, job kind or version is found across a
line break or lost at one."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search.log_job_kind import _KIND_PATTERNS
from incidents.search.log_lines import LogLines
from incidents.search.log_text import unique_lines
from incidents.search.log_tokens import _EXTRACTORS, failure_tokens
from incidents.search.log_versions import _version_matcher
from incidents.search.patterns import SOURCE_FILE

EVAL_LOGS = sorted((Path(__file__).parents[2] / "eval" / "logs").glob("*.log"))

# Lines whose end and the next line's start would make a match if a pattern could read a
# line break as a space or as a non-word character.
ACROSS_LINES = "\n".join(
    [
        "NVRM: Xid",
        "79, pid=1234, GPU has fallen off the",
        "bus.",
        "NVRM: Xid (PCI:0000:87:00):",
        "79, pid=1234",
        "[Errno",
        "28] No space left on",
        "device",
        "errno =",
        "110",
        "RuntimeError: CUDA error:",
        "an illegal memory access was encountered",
        "slurmd: fatal:",
        "gres.conf duplicate records for gpu",
        "NCCL version",
        "2.19.3+cuda12.3",
        "torch ==",
        "2.7.0",
        "vLLM",
        "v0.6.3 serving requests",
        "Got completion from peer 10.0.0.2 with error",
        "12",
        "failed to",
        "initialize NVML",
        "training",
        "iteration 12 loss 2.3",
        "NCCL version 2.18.1 on the same line",
        "\tCUDA error:\tdevice-side assert triggered\r",
        "n7:2712:3301 [3] NCCL INFO proxy.",
        "cc:1391 -> 2 and transport/net_ib.cc:",
        "651",
    ]
)


def _spans(match, groups: int) -> list[tuple[int, int]]:
    """The spans of the whole match and of each group ((-1, -1) for one that took no part),
    which the readers of a match use (`_found_as`, `_is_container_release`, ...)."""
    return [match.span(n) for n in range(groups + 1)]


def _per_line(pattern, lines: list[str]) -> list[tuple]:
    return [
        (index, _spans(match, pattern.groups), match.groups())
        for index, line in enumerate(lines)
        for match in pattern.finditer(line)
    ]


def _joined(pattern, scanned: LogLines) -> list[tuple]:
    return [
        (index, _spans(match, pattern.groups), match.groups()) for index, match in scanned.matches(pattern)
    ]


def _patterns():
    yield from (compiled for _, compiled in _EXTRACTORS)
    yield from _KIND_PATTERNS.values()
    yield SOURCE_FILE
    matcher, _ = _version_matcher((("NCCL", "NCCL"), ("torch", "PyTorch"), ("vLLM", "vLLM")))
    yield matcher


@pytest.mark.parametrize("text", [ACROSS_LINES, *[p.read_text(encoding="utf-8") for p in EVAL_LOGS]])
def test_every_built_in_pattern_finds_in_the_joined_lines_what_it_finds_in_each(text):
    lines = list(unique_lines(text))
    scanned = LogLines(lines)
    for pattern in _patterns():
        assert _joined(pattern, scanned) == _per_line(pattern, lines), pattern.pattern


def test_a_token_split_over_two_lines_is_not_found():
    tokens = failure_tokens(unique_lines(ACROSS_LINES))
    # `Xid` then `79` on the next line (both spellings), `fatal:` then its message, `errno`
    # then its number: nothing is read across a line break.
    assert "Xid 79" not in tokens
    assert not any(token.startswith("gres.conf") for token in tokens)
    assert "ENOSPC" not in tokens and "ETIMEDOUT" not in tokens
    # What a line holds whole is still read, tabs and a carriage return included.
    assert "cuda error device-side assert triggered" in tokens


def test_each_token_carries_the_numbers_of_its_own_lines():
    text = "\n".join(
        [
            "step 1 ok",  # 1
            "",  # 2
            "NVRM: Xid (PCI:0000:87:00): 79, pid=1, GPU has fallen off the bus.",  # 3
            "step 1 ok",  # 4, a repeat
            "RuntimeError: NCCL error: unhandled system error",  # 5
            "NVRM: Xid (PCI:0000:87:00): 79, pid=1, GPU has fallen off the bus.",  # 6
            "CUDA error: an illegal memory access was encountered",  # 7
        ]
    )
    found = failure_tokens(unique_lines(text))
    numbers = {token: [number for number, _ in e.lines] for token, e in found.items()}
    # A line repeated word for word is one line, at its first number; its numbers are kept apart.
    assert numbers["Xid 79"] == [3]
    assert numbers["fallen off the bus"] == [3]
    assert found["Xid 79"].numbers == {text.splitlines()[2]: {3, 6}}
    assert numbers["unhandled system error"] == [5]
    assert numbers["cuda error an illegal memory access was encountered"] == [7]
