"""Whether a mention of an error code in text is negated or counterfactual: "instead of
failing with ENOSPC", "rather than an Xid 79", "no longer raises ncclSystemError", "did not
see any Xid 79", "without an OOMKilled". Such a mention says the failure did *not* print
that code, so it must not tag the code (`codes.CodeVocabulary.find`, at import; and a log
line, `search.log_terms`, so that a case and a log line are tagged alike).

Only the words just before the mention, in its own clause, are read (`NEGATED_BEFORE`): a
cue phrase, then at most a few words, then the code. "could not" and a bare "not" are no
cue: "NCCL could not extend /dev/shm: ENOSPC" is how a failure prints its code. Linear
time (RE2), on a bounded window of text.
"""

from __future__ import annotations

import functools
from typing import Any

import re2

# How far before a mention a cue is looked for (characters), and the clause it must be in:
# a cue before a sentence, semicolon, colon or comma boundary speaks of something else.
WINDOW = 60
_CLAUSE_END = ".;:!?,\n"
# A cue, then up to 40 characters of the same clause (a few words: "instead of failing
# with `"), ending where the mention starts. "did not" and "never" only with a verb of
# seeing or failing: "did not recover after Xid 79" and "never recovered from Xid 79" say
# the code was printed.
NEGATED_BEFORE = (
    r"(?i)(?:\b(?:instead\s+of|rather\s+than|no\s+longer|without|no\s+sign\s+of|not\s+a\s+single"
    r"|(?:did\s+not|didn't|does\s+not|doesn't|never)\s+"
    r"(?:see|saw|seen|show|showed|shown|hit|get|got|log|logged|report|reported|raise|raised"
    r"|print|printed|fail|failed|return|returned|throw|threw|emit|emitted)"
    r")\b[^.;:!?,\n]{0,40}"
    r"|\b(?:no|not)\s+(?:an?\s+|any\s+|the\s+|one\s+)?[`'\"]?)$"
)


@functools.cache
def _cue() -> Any:
    """The compiled `NEGATED_BEFORE` (compiled once, on first use)."""
    return re2.compile(NEGATED_BEFORE)


def negated(text: str, start: int) -> bool:
    """Whether the mention starting at `start` of `text` is negated or counterfactual: a cue
    of `NEGATED_BEFORE` in the `WINDOW` characters before it, in its own clause."""
    before = text[max(start - WINDOW, 0) : start]
    cut = max(before.rfind(mark) for mark in _CLAUSE_END)
    if cut >= 0:
        before = before[cut + 1 :]
    return _cue().search(before) is not None


def shown_by(pattern: Any, text: str) -> bool:
    """Whether compiled `pattern` matches somewhere in `text` at a mention not `negated`."""
    return any(not negated(text, match.start()) for match in pattern.finditer(text))
