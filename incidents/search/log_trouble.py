"""Whether a pasted log shows anything going wrong (`shows_trouble`): a log in which nothing
failed (a healthy server's start-up, INFO lines) shares only the names of the program it ran
with the cases of that program, and matches none of them (`logmatch` labels its hits weak).
"""

from __future__ import annotations

import re2

from incidents.models import Facet

from .log_findings import Findings
from .log_lines import LogLines
from .log_tokens import BOILERPLATE, NAMING_EXTRACTORS

# A line that says something went wrong whatever the vocabulary knows: an error-level
# message (not a warning, which healthy servers print), a Python traceback or fault
# handler's dump (`Thread 0x... (most recent call first)`, `File "...", line N`), py-spy's
# dump of a hung process (`Thread 2713 (idle)`, `    broadcast (torch/.../distributed_c10d.py:1191)`),
# an exception's name, a process killed or aborted. RE2, one scan (`LogLines.lines_matching`);
# cannot match a line break.
TROUBLE = re2.compile(
    r"(?m)\b(?:ERROR|FATAL|CRITICAL|PANIC|Traceback|most recent call (?:first|last)|Killed|Aborted|"
    r"[A-Z]\w*(?:Error|Exception))\b|"
    r"^[^\S\n]*File \"[^\"\n]+\", line \d+|"
    r"\bThread (?:0x[0-9a-fA-F]+|\d+ \((?:idle|active)\))|"
    r"^[^\S\n]+[\w.<>]+ \([^()\s]+\.py:\d+\)"
)


def names_a_failure(findings: Findings) -> bool:
    """Whether the log's evidence names a failure: a failure token (not a code name, a
    setting or boilerplate), or a symptom, root cause or error code of the vocabulary;
    not a component's name or version, which any log of the program prints."""
    if any(
        evidence.kind not in (*NAMING_EXTRACTORS, "setting") and token.lower() not in BOILERPLATE
        for token, evidence in findings.tokens.items()
    ):
        return True
    return any(
        findings.term_by_id[t].facet in (Facet.SYMPTOM, Facet.ROOT_CAUSE, Facet.ERROR_CODE)
        for t in findings.term_evidence
    )


def shows_trouble(findings: Findings, scanned: LogLines) -> bool:
    """Whether the log shows anything going wrong: evidence naming a failure
    (`names_a_failure`) or a line of `TROUBLE` (an error-level message, a traceback or
    stack dump, an exception's name)."""
    return names_a_failure(findings) or bool(scanned.lines_matching(TROUBLE))
