""" "Did you mean": query words that no case has, corrected to a close vocabulary word; the
others no case has are named, for the plan to search without them."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from incidents.selectors.spelling import slips

from .patterns import GENERIC_EXCEPTION_NAMES
from .query import CODE_WORDS, Atom, ParsedQuery, VocabTerm
from .text import words

MIN_LENGTH = 4  # shorter words are too often codes (`dbe`, `xid`) to correct
# Deliberately not the rule of every other "did you mean" (`selectors.spelling.closeness`):
# that one only names values for the caller to choose from, while a correction replaces the
# word searched, unasked. So a word held whole by a vocabulary word is no misspelling of it
# here (`time` is in `timeout`, closeness 0.9), a short word is corrected only to the one
# word a slip away (`one_edit_from`, slips counted as `closeness` counts them), and the
# cut-off below is the one the search evaluation's tuning set was measured with
# (eval/README.md). difflib ratio: `timout` -> `timeout` 0.92, `infiniban` -> `infiniband` 0.95.
CUTOFF = 0.8
# A Python exception class as printed: `OSError`, `DistBackendError`, `UserWarning`.
_EXCEPTION_NAME = re.compile(r"[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning)")
_GENERIC_NAMES = frozenset(name.lower() for name in GENERIC_EXCEPTION_NAMES)


def is_exception_name(word: str) -> bool:
    """Whether `word` names an exception: a CamelCase word ending in Error, Exception or
    Warning, or a generic exception name in any case (`oserror`). Such a word is never
    corrected: `OSError` is 0.83 from `error` by difflib, and searched as `error` it matched
    116 of 172 cases (a new user's walkthrough)."""
    return bool(_EXCEPTION_NAME.fullmatch(word)) or word.lower() in _GENERIC_NAMES


def known_words(terms: list[VocabTerm]) -> list[str]:
    """The words of the vocabulary's forms that a query word may be corrected to, sorted."""
    return sorted({w.lower() for t in terms for f in t.forms for w in words(f) if len(w) >= MIN_LENGTH})


def one_edit_from(word: str, known: list[str]) -> list[str]:
    """The one vocabulary word one edit from `word` (a letter replaced, added, dropped, or two
    neighbours swapped), as a list; none when there is none or more than one. A short word's
    one slip is under difflib's cutoff (`ncll` -> `nccl` 0.75, the typo of the word people
    type most), while a longer word's passes it."""
    found = [other for other in known if slips(word, other, at_most=1) == 1]
    return found if len(found) == 1 else []


@dataclass(frozen=True)
class CheckedWords:
    """What `check_words` made of a query's words."""

    parsed: ParsedQuery  # corrected in place
    suggestion: str | None  # the corrected query text, or None when nothing was corrected
    # Words typed that no published case contains and no vocabulary word corrects (each
    # a single-word group of its own), in query order: `encountered` in a pasted
    # `CUDA error: an illegal memory access was encountered`.
    in_no_case: tuple[str, ...] = ()


def correct(
    query: str, parsed: ParsedQuery, terms: list[VocabTerm], backend, known: list[str] | None = None
) -> tuple[ParsedQuery, str | None]:
    """Replace query words that no published case contains by the closest vocabulary word
    (`check_words`): the parsed query (corrected in place) and the corrected query text, or
    None when nothing was corrected."""
    checked = check_words(query, parsed, terms, backend, known)
    return checked.parsed, checked.suggestion


def check_words(
    query: str, parsed: ParsedQuery, terms: list[VocabTerm], backend, known: list[str] | None = None
) -> CheckedWords:
    """Replace query words that no published case contains by the closest vocabulary word,
    and say which of the other words typed no published case contains.

    The words checked are those of four letters or more that are no vocabulary word, no
    stop word and no code word; an exception name (`is_exception_name`) is checked but
    never corrected. Costs one query, and only when the query has such a word.
    `known`: `known_words(terms)` when the caller keeps it.
    """
    known = known if known is not None else known_words(terms)
    known_set = set(known)
    checked: list[tuple[int, str]] = []  # (group index, word as typed)
    wanted: dict[tuple[int, str], str] = {}
    for index, group in enumerate(parsed.groups):
        for atom in group:
            if atom.is_phrase or not atom.words[0].isalpha() or len(atom.words[0]) < MIN_LENGTH:
                continue
            if atom.is_stop_word:
                # PostgreSQL does not index stop words, so `with` would look like a word no case
                # has there (and become `switch`) while SQLite finds it: never correct them.
                continue
            word = atom.words[0].lower()
            if word in known_set or word in CODE_WORDS:
                continue  # `errno` is a code word, not a misspelt `error`
            checked.append((index, atom.words[0]))
            if is_exception_name(atom.words[0]):
                continue  # in no case, it is said so; never another word
            close = difflib.get_close_matches(word, known, n=1, cutoff=CUTOFF) or one_edit_from(word, known)
            if close:
                wanted[(index, atom.words[0])] = close[0]
    if not checked:
        return CheckedWords(parsed, None)
    found = backend.atoms_found([Atom((word,)) for _, word in checked])
    missing = [key for position, key in enumerate(checked) if position not in found]
    fixed = {key: wanted[key] for key in missing if key in wanted}
    in_no_case = tuple(
        typed for index, typed in missing if (index, typed) not in fixed and len(parsed.groups[index]) == 1
    )
    if not fixed:
        return CheckedWords(parsed, None, in_no_case)
    text = query
    for (index, typed), correction in fixed.items():
        parsed.groups[index] = [
            Atom((correction,)) if atom.words == (typed,) else atom for atom in parsed.groups[index]
        ]
        text = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", correction, text)
    return CheckedWords(parsed, text, in_no_case)
