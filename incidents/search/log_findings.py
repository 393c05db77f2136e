"""What a pasted log shows that a case may share (`find_evidence`): vocabulary terms
(`log_terms`), failure tokens (`log_tokens`) and component versions (`log_versions`), each
with the lines it was read on, and which lines carry a signature, name a failure or count
for the reading (`LogReading`). No database: the terms are given.
"""

from __future__ import annotations

from dataclasses import dataclass

from incidents.codes import natural_key
from incidents.models import Facet, Term

from .log_terms import find_terms
from .log_text import Evidence, LogText
from .log_tokens import NAMING_EXTRACTORS, failure_tokens
from .log_versions import component_versions
from .results import FoundCode


@dataclass(frozen=True)
class Findings:
    """Everything `find_evidence` read in a log."""

    terms: list[Term]  # the vocabulary read, with case counts (`terms_with_case_counts`)
    term_by_id: dict[int, Term]
    term_evidence: dict[int, Evidence]  # term id -> its lines, in the order first found
    by_pattern: set[int]  # terms found by one of their own patterns
    tokens: dict[str, Evidence]  # failure token -> its lines (`log_tokens.failure_tokens`)
    versions: dict[tuple[str, str], Evidence]  # (component name, version) -> its lines
    signature_lines: set[str]  # lines naming a term or holding a failure token
    # Of those, the lines naming a failure: a term, or a token that is no code name or setting.
    failure_lines: set[str]
    # The lines the reading counts as carrying a signature: a token's, or a term's other
    # than a component's (`log_terms.FoundTerms.counted_lines`).
    counted_lines: set[str]

    @property
    def empty(self) -> bool:
        """Whether nothing a case could share was found (no term, token or version)."""
        return not self.term_evidence and not self.tokens and not self.versions

    def is_context(self, term_id: int) -> bool:
        """A component found by its name only: context, not a signature."""
        return self.term_by_id[term_id].facet == Facet.COMPONENT and term_id not in self.by_pattern

    @property
    def component_names(self) -> set[str]:
        """The names of every component of the vocabulary read."""
        return {t.name for t in self.terms if t.facet == Facet.COMPONENT}

    def error_codes(self) -> tuple[FoundCode, ...]:
        """The error codes found (by their patterns) with the first line numbers of their
        distinct lines (a repeated line once, at its first number), in vocabulary order
        (vendor, then name, numbers in order)."""
        return tuple(
            FoundCode(term=t, line_numbers=tuple(sorted(n for n, _ in self.term_evidence[t.id].lines)))
            for t in sorted(
                (t for t in self.terms if t.facet == Facet.ERROR_CODE and t.id in self.term_evidence),
                key=lambda t: (natural_key(t.vendor or ""), natural_key(t.name)),
            )
        )


def find_evidence(log: LogText, terms: list[Term]) -> Findings:
    """The `terms` (symptoms, components, root causes, error codes), failure tokens and
    component versions in the distinct lines of `log`, each pattern scanning them once
    (`log_lines.LogLines`)."""
    found = find_terms(log.lines, log.scanned, terms)
    signature_lines = set(found.lines)
    counted_lines = set(found.counted_lines)
    failure_lines = set(found.lines)  # lines naming a term, or a failure token (below)
    tokens = failure_tokens(log.lines, log.scanned)
    versions = component_versions(log.lines, terms, log.scanned)
    for evidence in tokens.values():
        signature_lines.update(line for _, line in evidence.lines)
        counted_lines.update(line for _, line in evidence.lines)
        if evidence.kind not in (*NAMING_EXTRACTORS, "setting"):
            failure_lines.update(line for _, line in evidence.lines)
    return Findings(
        terms=terms,
        term_by_id={t.id: t for t in terms},
        term_evidence=found.evidence,
        by_pattern=found.by_pattern,
        tokens=tokens,
        versions=versions,
        signature_lines=signature_lines,
        failure_lines=failure_lines,
        counted_lines=counted_lines,
    )
