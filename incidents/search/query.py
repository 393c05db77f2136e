"""Reading what a person typed into a search box, safely, whatever they typed.

`parse_query` turns any string into a `ParsedQuery`: groups of alternatives that must all
match (AND of ORs) and atoms that must not match. Nothing of the raw text reaches a
backend's query syntax: each atom is a word or a phrase of plain words, and each backend
quotes atoms itself (`backends.py`).

Syntax understood, on both backends:
- `"out of memory"`: a phrase (an unclosed quote runs to the end of the query);
- `-word`, `-"a phrase"`, `NOT word`: exclusion;
- `a OR b`, `a | b`: alternatives; `AND` / `&&` are accepted and change nothing;
- anything joined by punctuation (`NCCL-timeout`, `Xid:79`, `NCCL_IB_TIMEOUT`, `2.18.3`,
  `torch.distributed`) is a phrase of its words, so error tokens match as written.

`expand_with_vocabulary` then widens each run of words that names a vocabulary term (its
name or a synonym) into that term's name and synonyms, and records the term so ranking can
favour cases tagged with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from incidents.selectors.params import MAX_QUERY_CHARS  # the one query length limit

from .text import STOP_WORDS, clean, stem, words

MAX_GROUPS = 32
MAX_FORM_WORDS = 6
# Terms whose rarity weight (`VocabTerm.weight`) is below this are recognised (for ranking)
# but do not widen the query with their synonyms.
MIN_WIDENING_WEIGHT = 0.4

_CHUNK_RE = re.compile(r'-?"[^"]*"?|\S+')


@dataclass(frozen=True)
class Atom:
    """A word, or a phrase of words that must appear in this order."""

    words: tuple[str, ...]

    @property
    def is_phrase(self) -> bool:
        return len(self.words) > 1

    @property
    def is_stop_word(self) -> bool:
        return all(w.lower() in STOP_WORDS for w in self.words)

    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class VocabTerm:
    """What query expansion needs of a vocabulary term."""

    id: int
    facet: str
    name: str
    forms: tuple[str, ...]  # name first, then synonyms
    weight: float = 1.0  # how much naming it favours cases tagged with it (0..1)


@dataclass
class ParsedQuery:
    groups: list[list[Atom]] = field(default_factory=list)  # AND of (OR of atoms)
    # The groups as typed, before synonyms were added: ranking favours cases matching them.
    literal_groups: list[list[Atom]] = field(default_factory=list)
    excluded: list[Atom] = field(default_factory=list)
    terms: list[VocabTerm] = field(default_factory=list)  # terms the query names
    notes: list[str] = field(default_factory=list)
    dropped_stop_words: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not self.groups and not self.excluded

    def positive_atoms(self) -> list[Atom]:
        return [atom for group in self.groups for atom in group]


def parse_query(raw: str) -> ParsedQuery:
    """Parse any text into groups and exclusions (never raises). See the module docstring."""
    parsed = ParsedQuery()
    text = clean(raw or "").strip()
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS]
        parsed.notes.append(f"The query was cut to its first {MAX_QUERY_CHARS} characters.")
    pending_or = False
    negate_next = False
    for match in _CHUNK_RE.finditer(text):
        chunk = match.group(0)
        if chunk in ("OR", "|", "||"):
            pending_or = bool(parsed.groups)
            continue
        if chunk in ("AND", "&", "&&", "+"):
            continue
        if chunk == "NOT":
            negate_next = True
            continue
        negate = negate_next
        negate_next = False
        # `-word` excludes; `--flag` (a command-line option) is searched for as written.
        if chunk.startswith("-") and len(chunk) > 1 and chunk[1] != "-":
            negate, chunk = True, chunk[1:]
        found = words(chunk)
        if not found:
            pending_or = pending_or and not negate
            continue
        atom = Atom(tuple(found))
        if negate:
            parsed.excluded.append(atom)
        elif pending_or:
            parsed.groups[-1].append(atom)
        else:
            parsed.groups.append([atom])
        pending_or = False
    if len(parsed.groups) > MAX_GROUPS:
        parsed.groups = parsed.groups[:MAX_GROUPS]
        parsed.notes.append(f"Only the first {MAX_GROUPS} words of the query were searched.")
    return parsed


def _form_key(form: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in words(form))


def build_lexicon(terms: Iterable[VocabTerm]) -> dict[tuple[str, ...], list[VocabTerm]]:
    """Stemmed word tuples of every term name and synonym -> the terms they name."""
    lexicon: dict[tuple[str, ...], list[VocabTerm]] = {}
    for term in terms:
        for form in term.forms:
            key = _form_key(form)
            if key and len(key) <= MAX_FORM_WORDS and not all(w in STOP_WORDS for w in key):
                named = lexicon.setdefault(key, [])
                if term not in named:
                    named.append(term)
    return lexicon


def _keeps_meaning(atom: Atom) -> bool:
    """Whether a synonym still means itself once stop words are dropped, as PostgreSQL
    does: `no progress` would become `progress` and `link down` `link`, so they are left
    out; `OOM`, `GPU fell off the bus` are kept."""
    content = [w for w in atom.words if w.lower() not in STOP_WORDS]
    return len(content) == len(atom.words) or len(content) >= 2


def expand_with_vocabulary(
    parsed: ParsedQuery, lexicon: dict[tuple[str, ...], list[VocabTerm]]
) -> ParsedQuery:
    """Widen runs of words naming a term into the term's forms; drop stop words after.

    Runs are matched longest first over consecutive single-atom groups (`NCCL timeout`
    is the symptom tag, not the component NCCL followed by a word), stop words included
    so `out of memory` is found; a phrase atom must name a term whole.
    """
    groups = parsed.groups
    result: list[list[Atom]] = []
    literal: list[list[Atom]] = []
    named: list[VocabTerm] = []
    i = 0
    while i < len(groups):
        group = groups[i]
        span_end, found = i + 1, None
        if len(group) == 1:
            longest = 1
            if not group[0].is_phrase:
                # how many following groups are single words, for a run of words
                while (
                    i + longest < len(groups)
                    and longest < MAX_FORM_WORDS
                    and len(groups[i + longest]) == 1
                    and not groups[i + longest][0].is_phrase
                ):
                    longest += 1
            for end in range(i + longest, i, -1):
                key = tuple(stem(w) for g in groups[i:end] for w in g[0].words)
                if key in lexicon and not all(w in STOP_WORDS for w in key):
                    span_end, found = end, lexicon[key]
                    break
        if found:
            span = Atom(tuple(w for g in groups[i:span_end] for w in g[0].words))
            alternatives = [span]
            for term in found:
                if term not in named:
                    named.append(term)
                if term.weight < MIN_WIDENING_WEIGHT:
                    continue  # a term on most cases: its synonyms would only add noise
                for form in term.forms:
                    atom = Atom(tuple(words(form)))
                    if atom.words and atom not in alternatives and _keeps_meaning(atom):
                        alternatives.append(atom)
            result.append(alternatives)
            literal.append([span])
        else:
            kept = [atom for atom in group if not atom.is_stop_word]
            parsed.dropped_stop_words.extend(a.text() for a in group if a.is_stop_word)
            if kept:
                result.append(kept)
                literal.append(kept)
        i = span_end
    parsed.groups = result
    parsed.literal_groups = literal
    parsed.excluded = [atom for atom in parsed.excluded if not atom.is_stop_word]
    parsed.terms = named
    return parsed
