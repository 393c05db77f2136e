"""Reads of the error-code vocabulary: the index, one code's page, explaining a pasted line.

An error code is a `Term` of the facet `error_code` (`codes.py` says how cases get them).
The pages (`/codes/`), the API (`/api/codes/`) and MCP (`explain_error`) read through here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..codes import CodeTerm, CodeVocabulary, natural_key
from ..models import Case, Facet, Term
from .cases import cases_with_term
from .spelling import spelling_key
from .vocabulary import terms_with_case_counts

MAX_EXPLAIN_CHARS = 20_000


def error_codes() -> list[Term]:
    """Every error code with `case_count` (published cases), ordered by vendor then name
    with numbers read as numbers (Xid 13 before Xid 119): one query (cached per store
    generation)."""
    codes = terms_with_case_counts([Facet.ERROR_CODE])
    return sorted(codes, key=lambda t: (natural_key(t.vendor or ""), natural_key(t.name)))


@dataclass(frozen=True)
class CauseCount:
    """How often a root cause was the answer among a code's cases: "Hardware fault, 5 of 7"."""

    cause: Term
    count: int
    total: int


@dataclass(frozen=True)
class CaseCheck:
    """A check a case names ("Check your cluster for this"), with the case it comes from."""

    text: str
    case_id: str


@dataclass(frozen=True)
class CodeDetail:
    """One error code: the term (meaning, vendor, `source_url`, synonyms, patterns), its
    published cases newest first (fetched `with_summary()`, at most `limit`), `case_count`,
    how often each root cause was the answer among all its cases (most first), and the
    checks those cases name (each once, newest case first, at most `checks_limit`)."""

    term: Term
    case_count: int
    cases: list[Case]
    root_causes: list[CauseCount]
    checks: list[CaseCheck]


def code_detail(slug: str, *, limit: int = 50, checks_limit: int = 12) -> CodeDetail | None:
    """The error code `slug` with its cases, root-cause breakdown and checks, or None.

    Fixed 3 queries: the term, its published cases (root cause joined), their term links.
    """
    term = Term.objects.filter(facet=Facet.ERROR_CODE, slug=slug).first()
    return detail_of(term, limit=limit, checks_limit=checks_limit) if term else None


def detail_of(term: Term, *, limit: int = 50, checks_limit: int = 12) -> CodeDetail:
    """`code_detail` for a term already read (2 queries)."""
    cases = list(cases_with_term(term).newest_first().with_summary())
    causes = Counter(case.root_cause_category_id for case in cases)
    by_id = {case.root_cause_category_id: case.root_cause_category for case in cases}
    root_causes = [
        CauseCount(by_id[cause_id], n, len(cases))
        for cause_id, n in sorted(causes.items(), key=lambda item: (-item[1], by_id[item[0]].name))
    ]
    seen: set[str] = set()
    checks: list[CaseCheck] = []
    for case in cases:
        for text in case.checks:
            if spelling_key(text) not in seen and len(checks) < checks_limit:
                seen.add(spelling_key(text))
                checks.append(CaseCheck(text, case.id))
    return CodeDetail(
        term=term, case_count=len(cases), cases=cases[:limit], root_causes=root_causes, checks=checks
    )


def find_code(text: str) -> Term | None:
    """The error code `text` names by slug, name or synonym (any letter case), or None:
    one query."""
    wanted = spelling_key(text)
    for term in Term.objects.filter(facet=Facet.ERROR_CODE):
        if wanted in {spelling_key(s) for s in (term.slug, term.name, *term.synonyms)}:
            return term
    return None


def codes_in_text(text: str) -> list[Term]:
    """The error codes a pasted line or log excerpt shows, in the order the vocabulary
    lists them: the whole text as a code's name, slug or synonym (`Xid 79`, `xid-79`,
    `ncclSystemError`), else every code whose RE2 patterns match somewhere in it. The text
    is cut at `MAX_EXPLAIN_CHARS`. One query."""
    text = text[:MAX_EXPLAIN_CHARS]
    terms = list(Term.objects.filter(facet=Facet.ERROR_CODE))
    wanted = spelling_key(text)
    for term in terms:
        if wanted in {spelling_key(s) for s in (term.slug, term.name, *term.synonyms)}:
            return [term]
    vocabulary = CodeVocabulary(
        CodeTerm(t.name, t.slug, t.vendor or "", (t.slug, t.name, *t.synonyms), tuple(t.patterns))
        for t in terms
    )
    by_name = {term.name: term for term in terms}
    return [by_name[name] for name in vocabulary.find(text)]
