"""Vocabulary terms in a pasted log: every symptom tag and component by name and synonyms
(word-bounded; short upper-case forms such as `OOM` or `ECC` case-sensitive; never inside a
source-file or host name, `proxy.cc:1391` being a place in NCCL's code, not the word proxy),
plus each term's own `patterns` (symptom tags, components, root-cause categories and error
codes; an error code by its patterns only, the ones that tag cases at import,
`codes.CodeVocabulary`; a negated mention, "without an Xid 79", tags no code there either).
All of them in one RE2 set, read once per distinct line.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import re2

from incidents.models import Facet, Term
from incidents.negation import shown_by

from .log_lines import LogLines
from .log_text import Evidence
from .patterns import NOT_WORDS, blanked, compile_pattern, options, pattern_problem
from .text import STOP_WORDS, words

# Facets found by their patterns only: root causes have no name a log would print, and an
# error code's name (`Xid 79`) is one of the spellings its patterns already cover.
PATTERNS_ONLY = (Facet.ROOT_CAUSE, Facet.ERROR_CODE)


@dataclass
class TermForm:
    """One way `term_matcher` finds a term: a name, a synonym or one of its own patterns."""

    term: Term
    form: str  # a name or synonym as written, or one of the term's own patterns
    pattern: bool  # `form` is one of the term's own patterns


def form_pattern(form: str) -> tuple[str, bool]:
    """An RE2 pattern finding `form` as written, and whether case is ignored."""
    escaped = re2.escape(form)
    start = r"\b" if form[:1].isalnum() else ""
    end = r"\b" if form[-1:].isalnum() else ""
    short_upper = len(form) <= 4 and form.isupper()
    return f"{start}{escaped}{end}", not short_upper


def _source_files(scanned: LogLines) -> dict[str, list[tuple[int, int]]]:
    """Line -> the spans of the source-file and host names in it (`patterns.NOT_WORDS`), for
    the lines that name one: one scan of the joined lines (`log_lines.py`)."""
    found: dict[str, list[tuple[int, int]]] = {}
    for index, match in scanned.matches(NOT_WORDS):
        found.setdefault(scanned.lines[index], []).append(match.span())
    return found


def term_forms_in(
    line: str, matcher: Any, entries: list[TermForm], source_files: list[tuple[int, int]] | None
) -> list[int]:
    """The indexes of `entries` (`term_matcher`) found in `line`. A name or synonym counts
    only outside the source-file and host names of the line (`source_files`, its spans):
    `proxy.cc` is where NCCL's code is, and `gpu-node-023` a machine, not the word `GPU` (a
    synonym of NVIDIA GPU). A term's
    own patterns are read in the whole line, since they may name a file on purpose
    (Megatron-LM's, for `pretrain_gpt.py`)."""
    found = matcher.Match(line) or []
    if not found or not source_files:
        return found
    outside = set(matcher.Match(blanked(line, source_files)) or ())
    return [index for index in found if entries[index].pattern or index in outside]


def term_matcher(terms: list[Term]) -> tuple[Any, list[TermForm]]:
    """One RE2 set of every term form and pattern; index -> (term, form or pattern).
    Compiling several hundred patterns costs tens of milliseconds, so the set is kept per
    distinct vocabulary (`_matcher_of`), which changes only when terms are edited."""
    spec = tuple((t.id, t.facet, t.name, tuple(t.synonyms), tuple(t.patterns)) for t in terms)
    matcher, forms = _matcher_of(spec)
    by_id = {t.id: t for t in terms}
    return matcher, [TermForm(by_id[term_id], form, pattern) for term_id, form, pattern in forms]


@functools.lru_cache(maxsize=2)
def _matcher_of(spec: tuple[tuple[int, str, str, tuple[str, ...], tuple[str, ...]], ...]):
    matcher = re2.Set.SearchSet(options())
    forms: list[tuple[int, str, bool]] = []
    for term_id, facet, name, synonyms, patterns in spec:
        for form in [] if facet in PATTERNS_ONLY else [name, *synonyms]:
            if len(words(form)) == 0 or all(w.lower() in STOP_WORDS for w in words(form)):
                continue
            pattern, ignore_case = form_pattern(form)
            matcher.Add(("(?i)" if ignore_case else "") + pattern)
            forms.append((term_id, form, False))
        for pattern in patterns:
            if pattern_problem(pattern) is None:
                matcher.Add("(?i)" + pattern)
                forms.append((term_id, pattern, True))
    if not forms:
        return None, forms
    matcher.Compile()
    return matcher, forms


def term_patterns(term: Term) -> list[tuple[str, bool]]:
    """RE2 patterns finding a term in a line, each with whether it is a name or synonym
    (not read inside a source-file name, `term_forms_in`): its name and synonyms, then its
    own patterns."""
    found = []
    for form in [] if term.facet in PATTERNS_ONLY else [term.name, *term.synonyms]:
        if words(form):
            pattern, ignore_case = form_pattern(form)
            found.append((("(?i)" if ignore_case else "") + pattern, True))
    found.extend(("(?i)" + p, False) for p in term.patterns if pattern_problem(p) is None)
    return found


@dataclass
class FoundTerms:
    """The vocabulary terms a log names (`find_terms`) and the lines naming them."""

    evidence: dict[int, Evidence] = field(default_factory=dict)  # term id -> its lines, first found first
    by_pattern: set[int] = field(default_factory=set)  # terms found by one of their own patterns
    lines: set[str] = field(default_factory=set)  # lines naming any term
    # The lines naming a term other than a component: a line naming only components (`NCCL
    # INFO NCCL version 2.18.1`, `Using PyTorch 2.1.0 on NVIDIA GPU`) says what ran, not what
    # failed, so the reading does not count it as carrying a signature (it still weighs as
    # context, `log_findings.Findings.is_context`).
    counted_lines: set[str] = field(default_factory=set)


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    """An error code's pattern compiled (kept: the same few codes recur from log to log)."""
    return compile_pattern(pattern)


def find_terms(lines: dict[str, list[int]], scanned: LogLines, terms: list[Term]) -> FoundTerms:
    """The `terms` (every facet the vocabulary matches logs with) named in the distinct
    `lines` of a log (`log_text.unique_lines`; `scanned`, the same joined), each distinct
    line read once with one RE2 set (`term_matcher`)."""
    matcher, entries = term_matcher(terms)
    found = FoundTerms()
    if matcher is None:
        return found
    source_files = _source_files(scanned)
    for line, numbers in lines.items():
        for index in term_forms_in(line, matcher, entries, source_files.get(line)):
            entry = entries[index]
            if entry.term.facet == Facet.ERROR_CODE and not shown_by(_compiled(entry.form), line):
                continue  # "without an Xid 79": as at import (`codes.CodeVocabulary.find`)
            evidence = found.evidence.setdefault(entry.term.id, Evidence())
            if entry.pattern:
                found.by_pattern.add(entry.term.id)
            found.lines.add(line)
            if entry.term.facet != Facet.COMPONENT:
                found.counted_lines.add(line)
            for number in numbers:
                evidence.add(number, line)
    return found
