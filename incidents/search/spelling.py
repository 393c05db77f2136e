""" "Did you mean": query words that no case has, corrected to a close vocabulary word."""

from __future__ import annotations

import difflib
import re

from .query import CODE_WORDS, Atom, ParsedQuery, VocabTerm
from .text import words

MIN_LENGTH = 4  # shorter words are too often codes (`dbe`, `xid`) to correct
CUTOFF = 0.8  # difflib ratio: `timout` -> `timeout` 0.92, `infiniban` -> `infiniband` 0.95


def known_words(terms: list[VocabTerm]) -> list[str]:
    """The words of the vocabulary's forms that a query word may be corrected to, sorted."""
    return sorted({w.lower() for t in terms for f in t.forms for w in words(f) if len(w) >= MIN_LENGTH})


def one_edit_from(word: str, known: list[str]) -> list[str]:
    """The one vocabulary word one edit from `word` (a letter replaced, added, dropped, or two
    neighbours swapped), as a list; none when there is none or more than one. A short word's
    one slip is under difflib's cutoff (`ncll` -> `nccl` 0.75, the typo of the word people
    type most), while a longer word's passes it."""
    found = [other for other in known if abs(len(other) - len(word)) <= 1 and _one_edit(word, other)]
    return found if len(found) == 1 else []


def _one_edit(a: str, b: str) -> bool:
    if a == b:
        return False
    if len(a) == len(b):
        differ = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(differ) == 1 or (
            len(differ) == 2
            and differ[1] == differ[0] + 1
            and a[differ[0]] == b[differ[1]]
            and a[differ[1]] == b[differ[0]]
        )
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def correct(
    query: str, parsed: ParsedQuery, terms: list[VocabTerm], backend, known: list[str] | None = None
) -> tuple[ParsedQuery, str | None]:
    """Replace query words that no published case contains by the closest vocabulary word.

    Returns the parsed query (corrected in place) and the corrected query text, or None
    when nothing was corrected. Costs one query, and only when a word is neither a
    vocabulary word nor far from one. `known`: `known_words(terms)` when the caller keeps it.
    """
    known = known if known is not None else known_words(terms)
    known_set = set(known)
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
            close = difflib.get_close_matches(word, known, n=1, cutoff=CUTOFF) or one_edit_from(word, known)
            if close:
                wanted[(index, atom.words[0])] = close[0]
    if not wanted:
        return parsed, None
    keys = list(wanted)
    found = backend.atoms_found([Atom((word,)) for _, word in keys])
    fixed = {key: wanted[key] for position, key in enumerate(keys) if position not in found}
    if not fixed:
        return parsed, None
    text = query
    for (index, typed), correction in fixed.items():
        parsed.groups[index] = [
            Atom((correction,)) if atom.words == (typed,) else atom for atom in parsed.groups[index]
        ]
        text = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", correction, text)
    return parsed, text
