"""Log matching: pasted log text in, cases ranked by the failure signatures it contains.

Two kinds of evidence, both found in one pass over the text with RE2 (linear time, see
`patterns.py`):
- vocabulary terms: every symptom tag and component by name and synonyms (word-bounded;
  short upper-case forms such as `OOM` or `ECC` case-sensitive), plus each term's own
  `patterns` (symptom tags, components and root-cause categories). A case scores for each
  found term it carries, weighted by facet and rarity: `facet weight * log(1 + N / n)`.
- failure tokens (`patterns.EXTRACTORS`): Xid codes, NCCL results, CUDA errors, exception
  types, NCCL/CUDA environment variables, errno and signal names, known phrases. Each token
  is looked up in the cases' full-text index in one query; a case scores
  `TOKEN_WEIGHT * log(1 + N / n)` for each token its text contains.
Each hit lists the lines that produced its evidence (line number, line, term or token).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import re2

from incidents.models import Case, CaseTerm, Facet, Term
from incidents.selectors.vocabulary import terms_with_case_counts

from .backends import get_backend
from .patterns import EXTRACTORS, GENERIC_TOKENS, compile_pattern, options, pattern_problem
from .query import Atom
from .results import LogHit, LogLineMatch
from .text import STOP_WORDS, words

MAX_LOG_BYTES = 1_000_000
MAX_TOKENS = 40
LINES_PER_EVIDENCE = 20
MAX_LINES_PER_HIT = 50
TOKEN_WEIGHT = 1.2
FACET_WEIGHTS: dict[str, float] = {Facet.SYMPTOM: 1.0, Facet.ROOT_CAUSE: 0.8, Facet.COMPONENT: 0.5}


def decode_log(text: str | bytes) -> str:
    """Text of at most `MAX_LOG_BYTES` UTF-8 bytes: undecodable bytes become U+FFFD,
    NUL and other control characters (but tabs and newlines) become spaces."""
    if isinstance(text, bytes):
        data = text[:MAX_LOG_BYTES]
    else:
        data = text.encode("utf-8", "replace")[:MAX_LOG_BYTES]
    decoded = data.decode("utf-8", "replace")
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", " ", decoded).replace("\r", "")


@dataclass
class _TermForm:
    term: Term
    form: str


@dataclass
class _Evidence:
    lines: list[tuple[int, str]] = field(default_factory=list)
    count: int = 0

    def add(self, number: int, line: str) -> None:
        self.count += 1
        if len(self.lines) < LINES_PER_EVIDENCE and (not self.lines or self.lines[-1][0] != number):
            self.lines.append((number, line))


def _form_pattern(form: str) -> tuple[str, bool]:
    """An RE2 pattern finding `form` as written, and whether case is ignored."""
    escaped = re2.escape(form)
    start = r"\b" if form[:1].isalnum() else ""
    end = r"\b" if form[-1:].isalnum() else ""
    short_upper = len(form) <= 4 and form.isupper()
    return f"{start}{escaped}{end}", not short_upper


def _term_matcher(terms: list[Term]):
    """One RE2 set of every term form and pattern; index -> what it stands for."""
    matcher = re2.Set.SearchSet(options())
    entries: list[_TermForm] = []
    for term in terms:
        forms = [] if term.facet == Facet.ROOT_CAUSE else [term.name, *term.synonyms]
        for form in forms:
            if len(words(form)) == 0 or all(w.lower() in STOP_WORDS for w in words(form)):
                continue
            pattern, ignore_case = _form_pattern(form)
            matcher.Add(("(?i)" if ignore_case else "") + pattern)
            entries.append(_TermForm(term, form))
        for pattern in term.patterns:
            if pattern_problem(pattern) is None:
                matcher.Add("(?i)" + pattern)
                entries.append(_TermForm(term, pattern))
    if not entries:
        return None, entries
    matcher.Compile()
    return matcher, entries


_EXTRACTORS = [(e, compile_pattern(e.pattern, ignore_case=e.ignore_case)) for e in EXTRACTORS]


def _extractor_set():
    """One RE2 set of every extractor: which of them can match a line, in one scan."""
    matcher = re2.Set.SearchSet(options())
    for extractor in EXTRACTORS:
        matcher.Add(("(?i)" if extractor.ignore_case else "") + extractor.pattern)
    matcher.Compile()
    return matcher


_EXTRACTOR_SET = _extractor_set()


def _unique_lines(text: str) -> dict[str, list[int]]:
    """Each distinct non-blank line -> its first line numbers (logs repeat lines a lot)."""
    seen: dict[str, list[int]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        numbers = seen.get(line)
        if numbers is None:
            seen[line] = [number]
        elif len(numbers) < LINES_PER_EVIDENCE:
            numbers.append(number)
    return seen


def _tokens(lines: dict[str, list[int]]) -> dict[str, _Evidence]:
    found: dict[str, _Evidence] = {}
    for line, numbers in lines.items():
        for index in _EXTRACTOR_SET.Match(line) or ():
            extractor, compiled = _EXTRACTORS[index]
            for match in compiled.finditer(line):
                value = match.group(1) if match.lastindex else match.group(0)
                token = extractor.template.format(value.strip())
                if token in GENERIC_TOKENS:
                    continue
                key = token if not extractor.ignore_case else token.lower()
                evidence = found.setdefault(key, _Evidence())
                for number in numbers:
                    evidence.add(number, line)
    return found


def match_log(text: str | bytes, *, limit: int = 10) -> list[LogHit]:
    """Rank published cases by the failure signatures found in pasted log `text`.

    `text` may be str or bytes, up to 1 MB (`MAX_LOG_BYTES`; longer text is cut), any
    encoding garbage tolerated. Returns at most `limit` hits, best first, each with its
    score, the lines that matched (1-based line number, the line cut to 300 characters,
    the term or token) and the names of the terms and tokens it shares with the log; an
    empty list when nothing identifying is found. Never raises on odd input.

    Time is linear in the size of the text (RE2). Queries: a fixed 6 (terms with case
    counts, number of published cases, token look-up in the full-text index of published
    cases, the (case, term) pairs of the found terms, the hits' cases and their terms).
    """
    text = decode_log(text)
    lines = _unique_lines(text)

    terms = terms_with_case_counts([Facet.SYMPTOM, Facet.COMPONENT, Facet.ROOT_CAUSE])
    matcher, entries = _term_matcher(terms)
    term_evidence: dict[int, _Evidence] = {}
    if matcher is not None:
        for line, numbers in lines.items():
            for index in matcher.Match(line) or ():
                evidence = term_evidence.setdefault(entries[index].term.id, _Evidence())
                for number in numbers:
                    evidence.add(number, line)
    token_evidence = _tokens(lines)
    if not term_evidence and not token_evidence:
        return []

    total = max(Case.objects.published().count(), 1)
    scores: dict[str, float] = {}
    reasons: dict[str, list[tuple[str, _Evidence]]] = {}
    term_by_id = {t.id: t for t in terms}

    tokens = sorted(token_evidence, key=lambda t: (-len(words(t)), t))[:MAX_TOKENS]
    atoms = [Atom(tuple(words(t))) for t in tokens]
    hits_by_atom: dict[int, list[str]] = {}
    for case_id, index in get_backend().atom_hits([a for a in atoms if a.words]):
        hits_by_atom.setdefault(index, []).append(case_id)
    usable = [i for i, a in enumerate(atoms) if a.words]
    for position, index in enumerate(usable):
        case_ids = hits_by_atom.get(position, [])
        if not case_ids:
            continue
        weight = TOKEN_WEIGHT * math.log(1 + total / len(case_ids))
        for case_id in case_ids:
            scores[case_id] = scores.get(case_id, 0.0) + weight
            reasons.setdefault(case_id, []).append((tokens[index], token_evidence[tokens[index]]))

    # Which published cases carry the found terms (every facet, root causes included): one
    # query of plain (case, term) pairs; no case objects yet.
    found = list(term_evidence)
    pairs = (
        CaseTerm.objects.filter(case__in=Case.objects.published(), term_id__in=found)
        .order_by()
        .values_list("case_id", "term_id")
    )
    for case_id, term_id in pairs:
        term = term_by_id[term_id]
        weight = FACET_WEIGHTS.get(term.facet, 0.5) * math.log(1 + total / max(term.case_count, 1))
        scores[case_id] = scores.get(case_id, 0.0) + weight
        reasons.setdefault(case_id, []).append((term.name, term_evidence[term_id]))

    ranked = sorted(scores, key=lambda c: (-scores[c], c))[: max(0, limit)]
    cases = Case.objects.filter(id__in=ranked).with_summary().in_bulk()
    hits = []
    for case_id in ranked:
        matched: list[LogLineMatch] = []
        for name, evidence in reasons[case_id]:
            matched.extend(LogLineMatch(n, line.strip()[:300], name) for n, line in evidence.lines)
        matched.sort(key=lambda m: (m.line_number, m.term))
        hits.append(
            LogHit(
                case=cases[case_id],
                score=round(scores[case_id], 4),
                matched_lines=matched[:MAX_LINES_PER_HIT],
                matched_terms=tuple(dict.fromkeys(name for name, _ in reasons[case_id])),
            )
        )
    return hits
