"""Reading what a person typed into a search box, safely, whatever they typed.

`parse_query` turns any string into a `ParsedQuery`: groups of alternatives that must all
match (AND of ORs) and atoms that must not match. Nothing of the raw text reaches a
backend's query syntax: each atom is a word or a phrase of plain words, and each backend
quotes atoms itself (`backends/`).

Syntax understood, on both backends:
- `"out of memory"`: a phrase (an unclosed quote runs to the end of the query);
- `-word`, `-"a phrase"`, `NOT word`: exclusion (but `-9`, `-110`: a minus glued to a
  number is part of the term, as in `exitcode -9`);
- `xid79`: also `xid 79`; `can't`: searched (not dropped as two stop words);
- `a OR b`, `a | b`: alternatives; `AND` / `&&` are accepted and change nothing;
- anything joined by punctuation (`NCCL-timeout`, `Xid:79`, `NCCL_IB_TIMEOUT`, `2.18.3`,
  `torch.distributed`) is a phrase of its words, so error tokens match as written.

`expand_with_vocabulary` then widens each run of words that names a vocabulary term (its
name or a synonym) into that term's name and synonyms, and records the term so ranking can
favour cases tagged with it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from incidents.selectors.params import MAX_QUERY_CHARS  # the one query length limit

from . import errnos
from .text import STOP_WORDS, clean, join_apostrophes, stem, words

MAX_GROUPS = 32
# The longest run of typed words looked up as a term (a form of more words is found when
# typed as one token or phrase: `CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE` is seven words).
MAX_FORM_WORDS = 6
# Terms whose rarity weight (`VocabTerm.weight`) is below this are recognised (for ranking)
# but do not widen the query with their synonyms.
MIN_WIDENING_WEIGHT = 0.4

_CHUNK_RE = re.compile(r'-?"[^"]*"?|\S+')


@dataclass(frozen=True)
class Atom:
    """A word, or a phrase of words that must appear in this order."""

    words: tuple[str, ...]
    # `can t` from `can't`: searched although both halves are stop words.
    contraction: bool = False
    # Typed inside double quotes: searched as written, even a single letter. Not part of the
    # atom's identity (`"a"` and `a` are the same words to a backend).
    quoted: bool = field(default=False, compare=False)

    @property
    def is_phrase(self) -> bool:
        return len(self.words) > 1

    @property
    def is_stop_word(self) -> bool:
        return not self.contraction and all(w.lower() in STOP_WORDS for w in self.words)

    @property
    def is_single_letter(self) -> bool:
        """A lone letter typed outside quotes (`a b`, the `x` of `x86 host`): it is in most
        cases' text, so it would make everything a match. Digits (`rank 0`, `-9`) are kept."""
        return (
            not self.quoted
            and len(self.words) == 1
            and len(self.words[0]) == 1
            and self.words[0].isascii()
            and self.words[0].isalpha()
        )

    @property
    def says_nothing(self) -> bool:
        """Left out of the search: a stop word or a lone letter."""
        return self.is_stop_word or self.is_single_letter

    def text(self) -> str:
        return " ".join(self.words)

    @property
    def folded(self) -> tuple[str, ...]:
        """The words in lower case: how two spellings of one atom (`ENOSPC`, `enospc`) are
        told to be the same alternative."""
        return tuple(w.lower() for w in self.words)


@dataclass(frozen=True)
class VocabTerm:
    """What query expansion needs of a vocabulary term."""

    id: int
    facet: str
    name: str
    forms: tuple[str, ...]  # name first, then synonyms
    weight: float = 1.0  # how much naming it favours cases tagged with it (0..1)
    cases: int = 0  # published cases tagged with it


@dataclass
class ParsedQuery:
    groups: list[list[Atom]] = field(default_factory=list)  # AND of (OR of atoms)
    # The groups as typed, before synonyms were added: ranking favours cases matching them.
    literal_groups: list[list[Atom]] = field(default_factory=list)
    excluded: list[Atom] = field(default_factory=list)
    terms: list[VocabTerm] = field(default_factory=list)  # terms the query names
    # Per group of `groups` (once widened), the terms its run of words names; empty for a
    # group of other words and for an identifier (`Xid 79`: precise whatever its term says).
    group_terms: list[tuple[VocabTerm, ...]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dropped_stop_words: list[str] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)  # OR, AND, NOT as typed (not searched)

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
    group_lines: list[int] = []  # per group of `parsed.groups`, the line (0-based) it starts on
    for match in _CHUNK_RE.finditer(text):
        chunk = match.group(0)
        if chunk in ("OR", "AND", "NOT"):
            parsed.operators.append(chunk)
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
        # `-word` excludes; `--flag` (a command-line option) and `-9` (an exit code or errno,
        # as in `exitcode -9`) are searched for as written.
        if chunk.startswith("-") and len(chunk) > 1 and chunk[1] != "-" and not chunk[1].isdigit():
            negate, chunk = True, chunk[1:]
        found = words(chunk)
        if not found:
            pending_or = pending_or and not negate
            continue
        alternatives = _alternatives(chunk, found)
        if chunk.startswith('"'):
            alternatives = [dataclasses.replace(a, quoted=True) for a in alternatives]
        if negate:
            parsed.excluded.append(alternatives[0])
        elif pending_or:
            parsed.groups[-1].extend(alternatives)
        else:
            parsed.groups.append(alternatives)
            group_lines.append(text.count("\n", 0, match.start()))
        pending_or = False
    if len(parsed.groups) > MAX_GROUPS:
        kept, note = _groups_to_search(text, group_lines)
        parsed.groups = [parsed.groups[index] for index in kept]
        parsed.notes.append(note)
    return parsed


def _groups_to_search(text: str, group_lines: list[int]) -> tuple[list[int], str]:
    """Which `MAX_GROUPS` of a longer query's groups are searched (their indexes, in the
    query's order) and the note saying so. `group_lines`: each group's line in `text`.

    The first `MAX_GROUPS`, unless the query has several lines and some show a failure as a
    program prints it (`log_tokens.signature_tokens`: an error code, an exception, `status=12
    ... vendor err 129`) whose groups fall past the cut: then those lines' groups come first,
    the other lines' fill up from the start. Four pasted log lines (two step lines, an NCCL
    INFO line, then the NET/IB `error 12` line) were searched by their first 32 words, the
    step numbers and the INFO line, and the error line, the one a case quotes, was cut off."""
    plain = (list(range(MAX_GROUPS)), f"Only the first {MAX_GROUPS} words of the query were searched.")
    lines = text.split("\n")
    if len(lines) < 2:
        return plain
    # Imported here: log_tokens reads this module's Atom (and RE2), needed only for a long paste.
    from .log_tokens import signature_tokens

    failing = {n for n in set(group_lines) if signature_tokens(lines[n])}
    if not any(group_lines[i] in failing for i in range(MAX_GROUPS, len(group_lines))):
        return plain  # no failure shown, or none cut off
    on_failing = [i for i, n in enumerate(group_lines) if n in failing]
    others = [i for i, n in enumerate(group_lines) if n not in failing]
    kept = sorted((on_failing + others)[:MAX_GROUPS])
    named = ", ".join(str(n + 1) for n in sorted(failing))
    which = f"line{'s' if len(failing) > 1 else ''} {named}"
    if len(on_failing) >= MAX_GROUPS:
        return (
            kept,
            f"Only the first {MAX_GROUPS} words of the query's {which}, showing an error, were searched.",
        )
    return kept, (
        f"Only {MAX_GROUPS} words of the query were searched: those of its {which}, showing an error, "
        "then the first of the others."
    )


def without_phrase_quotes(raw: str) -> str | None:
    """`raw` with the quotes of its phrases taken off, so that their words are searched
    wherever they stand; None when it has no quoted phrase of two words or more to loosen.
    Excluded phrases (`-"a phrase"`, `NOT "a phrase"`) keep their quotes: loosened they would
    exclude every case holding any of their words. A pasted error line in quotes rarely is
    a case's text word for word (`"CUDA error: an illegal memory access was encountered"`,
    where the cases say `illegal memory access`)."""
    text = clean(raw or "")
    pieces: list[str] = []
    loosened = False
    previous = ""
    for match in _CHUNK_RE.finditer(text):
        chunk = match.group(0)
        if chunk.startswith('"') and previous != "NOT" and len(words(chunk)) > 1:
            chunk = chunk.strip('"')
            loosened = True
        pieces.append(chunk)
        previous = match.group(0)
    return " ".join(pieces) if loosened else None


_JOINED_RE = re.compile(r"^([^\W\d_]{3,})(\d+)$")


def _alternatives(chunk: str, found: list[str]) -> list[Atom]:
    """The atoms one typed chunk may mean: as written, plus
    - `xid79` -> also `xid 79` (a code glued to its number, as people type it);
    - `can't` -> the phrase `can t` (FTS5 splits it) and `cant` (PostgreSQL's index form)."""
    atom = Atom(tuple(found))
    if len(found) == 1 and (joined := _JOINED_RE.match(found[0])):
        return [atom, Atom((joined.group(1), joined.group(2)))]
    if join_apostrophes(chunk) != chunk:
        contraction = Atom(tuple(found), contraction=True)
        return [contraction, Atom(tuple(words(join_apostrophes(chunk))))]
    return [atom]


def _form_key(form: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in words(form))


def build_lexicon(terms: Iterable[VocabTerm]) -> dict[tuple[str, ...], list[VocabTerm]]:
    """Stemmed word tuples of every term name and synonym -> the terms they name."""
    lexicon: dict[tuple[str, ...], list[VocabTerm]] = {}
    for term in terms:
        for form in term.forms:
            key = _form_key(form)
            if key and not all(w in STOP_WORDS for w in key):
                named = lexicon.setdefault(key, [])
                if term not in named:
                    named.append(term)
    return lexicon


def keeps_meaning(atom: Atom) -> bool:
    """Whether a synonym still means itself once stop words are dropped, as PostgreSQL
    does: `no progress` would become `progress` and `link down` `link`, so they are left
    out; `OOM`, `GPU fell off the bus` are kept."""
    content = [w for w in atom.words if w.lower() not in STOP_WORDS]
    return len(content) == len(atom.words) or len(content) >= 2


# Codes people type with or without a space (`xid 79`, `xid79`, `Xid:79`): the code word
# and its number are one identifier. Any vocabulary form made of a word and a number
# (`Xid 79`) makes its word such a code word too.
CODE_WORDS = frozenset({"xid", "sxid", "errno"})


def _identifier(atom: Atom) -> tuple[str, str] | None:
    """(code word, number) when `atom` is one: `xid 79`, `Xid:79`, `xid79`."""
    found = atom.words
    if len(found) == 2 and found[0].isalpha() and len(found[0]) >= 2 and found[1].isdigit():
        return found[0], found[1]
    if len(found) == 1 and (joined := _JOINED_RE.match(found[0])):
        return joined.group(1), joined.group(2)
    return None


def _identifier_group(group: list[Atom]) -> tuple[str, str] | None:
    """The identifier a group of alternatives stands for (`xid79` parses as `xid79` or
    `xid 79`; `Xid:79` as the phrase), or None."""
    found = {(code.lower(), number) for code, number in filter(None, map(_identifier, group))}
    if len(found) == 1 and all(_identifier(a) for a in group):
        code, number = next(iter(found))
        return code, number
    return None


def errno_alternatives(code: str, number: str) -> list[Atom]:
    """`errno 28` -> [`ENOSPC`, `No space left on device`]: the C library's symbolic name and
    message of an error number (`errnos`), which is how cases and logs mostly say it."""
    found = errnos.by_number(number) if code.lower() == "errno" else None
    if found is None:
        return []
    message = Atom(tuple(words(found.message)))
    return [Atom((found.name,)), *([message] if message.words and keeps_meaning(message) else [])]


def errno_name_alternatives(atom: Atom) -> list[Atom]:
    """`ENOSPC` -> [`errno 28`, `No space left on device`]: the number and message of a
    symbolic error name, typed in capitals as printed (or lower case when 6+ letters long,
    `enomem`, too long to be an ordinary word)."""
    if len(atom.words) != 1 or not (atom.words[0].isupper() or len(atom.words[0]) >= 6):
        return []
    found = errnos.by_name(atom.words[0])
    if found is None:
        return []
    return [Atom(("errno", str(found.number))), *errno_alternatives("errno", str(found.number))[1:]]


def _code_words(lexicon: dict[tuple[str, ...], list[VocabTerm]]) -> set[str]:
    return set(CODE_WORDS) | {k[0] for k in lexicon if len(k) == 2 and k[0].isalpha() and k[1].isdigit()}


def _join_identifiers(groups: list[list[Atom]], code_words: set[str]) -> list[list[Atom]]:
    """Each identifier as one group, written both ways: `xid 79` (two words typed apart, a
    code word then a number), `xid79` and `Xid:79` all become [`xid 79`, `xid79`], so the
    three spellings search the same thing."""
    out: list[list[Atom]] = []
    i = 0
    while i < len(groups):
        group = groups[i]
        pair = next(filter(None, map(_identifier, group)), None) if _identifier_group(group) else None
        if pair is None and i + 1 < len(groups) and len(group) == 1 and len(groups[i + 1]) == 1:
            first, second = group[0], groups[i + 1][0]
            if not first.is_phrase and not second.is_phrase:
                candidate = _identifier(Atom((*first.words, *second.words)))
                if candidate and candidate[0].lower() in code_words:
                    pair = candidate
                    i += 1  # the number's group is part of this one
        if pair is None:
            out.append(group)
        else:
            code, number = pair  # the code word as typed
            out.append([Atom((code, number)), Atom((code + number,))])
        i += 1
    return out


def _named_run(
    groups: list[list[Atom]], i: int, lexicon: dict[tuple[str, ...], list[VocabTerm]], *, min_groups: int
) -> tuple[int, Atom, list[VocabTerm]] | None:
    """The longest run of groups from `i` (at least `min_groups`) naming a term: (end, the
    run's words as one atom, its terms), or None. A run is a single atom, or single words
    typed apart; its first group may be an identifier's spellings (`mlx5` is also `mlx 5`),
    each tried, so `mlx5 syndrome 0x15` names the code it is a synonym of."""
    group = groups[i]
    firsts = group if _identifier_group(group) else group[:1] if len(group) == 1 else []
    for first in firsts:
        longest = 1
        if not first.is_phrase or len(group) > 1:
            # how many following groups are single words, for a run of words
            while (
                i + longest < len(groups)
                and longest < MAX_FORM_WORDS
                and len(groups[i + longest]) == 1
                and not groups[i + longest][0].is_phrase
            ):
                longest += 1
        for end in range(i + longest, i + min_groups - 1, -1):
            run = (*first.words, *(w for g in groups[i + 1 : end] for w in g[0].words))
            key = tuple(stem(w) for w in run)
            if key in lexicon and not all(w in STOP_WORDS for w in key):
                return end, Atom(run), lexicon[key]
    return None


def expand_with_vocabulary(
    parsed: ParsedQuery, lexicon: dict[tuple[str, ...], list[VocabTerm]]
) -> ParsedQuery:
    """Widen runs of words naming a term into the term's forms; drop stop words and lone
    letters after.

    Runs are matched longest first over consecutive single-atom groups (`NCCL timeout`
    is the symptom tag, not the component NCCL followed by a word), stop words included
    so `out of memory` is found; a phrase atom must name a term whole.

    An identifier (`Xid 79`, `xid79`) is precise: it names its terms (cases tagged with them
    rank higher among those showing it) but is widened only to forms with the same number,
    never to the term's generic synonyms (`Xid 79` is a synonym of GPU unavailable, whose
    synonym `GPU lost` would make every lost-GPU case a match for `xid 79`).

    A term is widened once, by the first run naming it: a later run naming it again (`CUDA
    error: an illegal memory access`, the second a synonym of the first) keeps its own
    words. Widened twice, the two groups were the same alternatives, so any case saying
    `CUDA error` matched both and the cases quoting the message had no more of the query.
    """
    groups = _join_identifiers(parsed.groups, _code_words(lexicon))
    result: list[list[Atom]] = []
    literal: list[list[Atom]] = []
    group_terms: list[tuple[VocabTerm, ...]] = []
    named: list[VocabTerm] = []
    widened: set[int] = set()  # ids of the terms a run was widened with

    def name(terms: list[VocabTerm]) -> None:
        for term in terms:
            if term not in named:
                named.append(term)

    i = 0
    while i < len(groups):
        group = groups[i]
        pair = _identifier_group(group)
        run = _named_run(groups, i, lexicon, min_groups=2 if pair is not None else 1)
        if pair is not None and run is None:
            code, number = pair
            found_terms = lexicon.get((stem(code), number), [])
            name(found_terms)
            alternatives = list(group)
            seen = {a.folded for a in alternatives}
            for term in found_terms:
                for form in term.forms:
                    atom = Atom(tuple(words(form)))
                    if number in atom.words and atom.folded not in seen and keeps_meaning(atom):
                        seen.add(atom.folded)
                        alternatives.append(atom)
            for atom in errno_alternatives(code, number):
                if atom.folded not in seen:
                    seen.add(atom.folded)
                    alternatives.append(atom)
                    name(lexicon.get(_form_key(atom.text()), []))
            result.append(alternatives)
            literal.append(list(group))
            group_terms.append(())
            i += 1
            continue
        span_end = i + 1
        if run is not None:
            span_end, span, found = run
            alternatives = [span]
            name(found)
            # A query that is nothing but a term's name or synonym of several words (`job
            # crash`) asks for the term, however common: its tagged cases are the answer,
            # not noise. One common word alone (`hang`) stays as typed: widened, `deadlock`
            # and `stuck` brought in "to avoid deadlocks" and "Pods stuck Pending".
            whole_query = i == 0 and span_end == len(groups) and len(span.words) > 1
            for term in found:
                if term.weight < MIN_WIDENING_WEIGHT and not whole_query:
                    continue  # a term on many cases: its synonyms would only add noise
                if term.id in widened:
                    continue  # named by an earlier run, widened there
                widened.add(term.id)
                for form in term.forms:
                    atom = Atom(tuple(words(form)))
                    if atom.words and atom not in alternatives and keeps_meaning(atom):
                        alternatives.append(atom)
            spelt = {a.folded for a in alternatives}
            alternatives.extend(a for a in errno_name_alternatives(span) if a.folded not in spelt)
            result.append(alternatives)
            literal.append([span])
            group_terms.append(tuple(found))
        else:
            kept = [atom for atom in group if not atom.says_nothing]
            parsed.dropped_stop_words.extend(a.text() for a in group if a.says_nothing)
            if kept:
                result.append(kept + [a for k in kept for a in errno_name_alternatives(k) if a not in kept])
                literal.append(kept)
                group_terms.append(())
        i = span_end
    parsed.groups = result
    parsed.literal_groups = literal
    parsed.excluded = [atom for atom in parsed.excluded if not atom.says_nothing]
    parsed.terms = named
    parsed.group_terms = group_terms
    return parsed
