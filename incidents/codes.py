"""Error codes on cases: the codes a case states and the codes its text shows.

An error code is a vocabulary term of the facet `error_code` (`fixtures/vocab.json`,
`error_codes`): Xid 79, ncclSystemError, IB completion status 12, ProcessGroupNCCL watchdog
timeout ... with RE2 `patterns`. At import a case's `symptoms.error_codes` is normalised
by `CodeVocabulary.derive`: the codes it states (any spelling, written back as the term's
name, in the document's order), then the codes whose patterns match its title, summary,
symptoms or detection (in `natural_key` order of vendor and name); the latter are stored
as derived (`CaseTerm.derived`), so that when an editor changes a code's patterns
`services.rederive_error_code` adds and removes that code where the text now shows it or
no longer does, and a stated code stays. Re-importing an export therefore changes nothing.
The same patterns tag pasted text (`CodeVocabulary.find`, `search.logmatch`), so a case
and a log line are tagged alike; a mention that is negated or counterfactual ("instead of
failing with ENOSPC", "did not see any Xid 79": `negation.py`) tags neither.

Patterns are matched ignoring case, with RE2 (linear time; `search.patterns`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import re2

from .models import Facet, Term
from .negation import shown_by
from .search.patterns import compile_pattern, options, pattern_problem
from .selectors.spelling import spelling_key
from .vocabulary import VocabularyDefinitions

# The parts of a case whose text shows what the failure printed (not root cause or checks:
# "grep for Xid 79" in a checklist does not mean the case showed it).
SCANNED_TEXT = ("title", "summary", "symptoms.description", "detection")
_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key reading digit runs as numbers: Xid 13 before Xid 119."""
    return tuple(int(part) if part.isdigit() else part.lower() for part in _DIGITS.split(text))


@dataclass(frozen=True)
class CodeTerm:
    name: str
    slug: str
    vendor: str
    spellings: tuple[str, ...]
    patterns: tuple[str, ...]


class CodeVocabulary:
    """The error-code terms with their spellings and compiled patterns."""

    def __init__(self, terms: Iterable[CodeTerm]):
        self.terms = sorted(terms, key=lambda t: (natural_key(t.vendor), natural_key(t.name)))
        self._by_spelling = {spelling_key(s): t.name for t in self.terms for s in t.spellings}
        self._compiled = [
            (term.name, [compile_pattern(p) for p in term.patterns if pattern_problem(p) is None])
            for term in self.terms
        ]
        self._set = _pattern_set(self._compiled)

    @classmethod
    def load(cls, definitions: VocabularyDefinitions | None = None) -> CodeVocabulary:
        """The stored error codes (one query), overridden by `definitions` of the same slug."""
        terms = {
            slug: CodeTerm(name, slug, vendor or "", (slug, name, *synonyms), tuple(patterns))
            for name, slug, vendor, synonyms, patterns in Term.objects.filter(
                facet=Facet.ERROR_CODE
            ).values_list("name", "slug", "vendor", "synonyms", "patterns")
        }
        for d in (definitions or VocabularyDefinitions()).terms:
            if d.facet == Facet.ERROR_CODE:
                terms[d.slug] = CodeTerm(d.name, d.slug, d.vendor or "", d.spellings, d.patterns)
        return _built(tuple(terms.values()))

    @classmethod
    def of(cls, terms: Iterable[CodeTerm]) -> CodeVocabulary:
        """`CodeVocabulary(terms)`, the one built before for the same terms when there is one
        (`_built`): a search reads the codes each time the store cache is off, and compiling
        their patterns took three times as long as reading the rest of its vocabulary."""
        return _built(tuple(terms))

    def resolve(self, spelling: str) -> str | None:
        """The name of the error code `spelling` names (name, slug or synonym, any case)."""
        return self._by_spelling.get(spelling_key(spelling))

    def find(self, text: str) -> list[str]:
        """Names of the codes whose patterns match somewhere in `text`, in vocabulary order,
        at a mention that is not negated ("instead of failing with ENOSPC": `negation.py`)."""
        if self._set is not None:
            # One scan of RE2's set for every pattern (12x faster at import than FilteredRE2
            # with a search per possible pattern). The set's DFA can run out of memory on a
            # long text, and then reports no match at all: the sentinel, which matches every
            # text, tells that apart, and the patterns are searched one by one instead.
            matcher, owners = self._set
            matched = matcher.Match(text) or []
            if len(owners) in matched:
                shown = {owners[i] for i in matched if i < len(owners)}
                return [
                    name
                    for name, patterns in self._compiled
                    if name in shown and any(shown_by(p, text) for p in patterns)
                ]
        return [name for name, patterns in self._compiled if any(shown_by(p, text) for p in patterns)]

    def derive(self, document: dict[str, Any], derived_before: Collection[str] = ()) -> list[str]:
        """A document's `symptoms.error_codes` after import: stated codes by name (unknown
        spellings are kept as written; validation reports them), then the codes its text
        shows (see `split`)."""
        stated, derived = self.split(document, derived_before)
        return [*stated, *derived]

    def split(
        self, document: dict[str, Any], derived_before: Collection[str] = ()
    ) -> tuple[list[str], list[str]]:
        """(stated, derived) codes of a document, by name.

        Stated: the document's `symptoms.error_codes`, less the codes that were derived for
        this case before (`derived_before`): a document built from the stored case (an
        admin edit, an export) lists them without stating them, and a code whose text is
        gone goes with it. Derived: the codes the text shows that it does not state, in
        vocabulary order.
        """
        stated = [self.resolve(s) or s for s in document["symptoms"].get("error_codes", [])]
        stated = list(dict.fromkeys(c for c in stated if c not in derived_before))
        return stated, [c for c in self.find(case_text(document)) if c not in stated]

    def shows(self, name: str, text: str) -> bool:
        """Whether the patterns of the code `name` match somewhere in `text`, at a mention
        that is not negated (`negation.py`)."""
        return any(shown_by(p, text) for n, patterns in self._compiled if n == name for p in patterns)

    def order(self, names: Collection[str]) -> list[str]:
        """`names` in vocabulary order (vendor, then name, numbers read as numbers)."""
        return [term.name for term in self.terms if term.name in names]


@functools.lru_cache(maxsize=4)
def _built(terms: tuple[CodeTerm, ...]) -> CodeVocabulary:
    """`CodeVocabulary(terms)`, kept for the same terms: an import loads the codes twice (validation,
    then the writer's preparation), and compiling every pattern and their set again was
    a twentieth of importing 10 cases. Nothing changes a built vocabulary."""
    return CodeVocabulary(terms)


def _pattern_set(compiled: list[tuple[str, list[Any]]]) -> tuple[Any, list[str]] | None:
    """RE2's set of every pattern followed by a sentinel that matches any text (its index is
    the number of patterns), with each pattern's code name by index; None when there is no
    pattern or the set cannot be built (then `find` searches every pattern)."""
    owners = [name for name, patterns in compiled for _ in patterns]
    if not owners:
        return None
    matcher = re2.Set.SearchSet(options())
    try:
        for _, patterns in compiled:
            for pattern in patterns:
                matcher.Add(pattern.pattern)
        matcher.Add("")
        matcher.Compile()
    except re2.error:
        return None
    return matcher, owners


def case_text(document: dict[str, Any]) -> str:
    """The `SCANNED_TEXT` fields of a document, one per line."""
    symptoms = document.get("symptoms") or {}
    parts = [
        document.get("title"),
        document.get("summary"),
        symptoms.get("description"),
        document.get("detection"),
    ]
    return "\n".join(p for p in parts if p)


def error_code_fields(term: Term, *, case_count: int | None = None) -> dict[str, Any]:
    """An error code's entry without its links, as the API and MCP's `vocab` give it (no
    queries). `case_count`: the published cases stating it, when not `term.case_count`."""
    return {
        "slug": term.slug,
        "name": term.name,
        "vendor": term.vendor,
        "description": term.description,
        "source_url": term.source_url,
        "synonyms": list(term.synonyms),
        "patterns": list(term.patterns),
        "case_count": term.case_count if case_count is None else case_count,
    }
