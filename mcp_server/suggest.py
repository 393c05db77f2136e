"""Spelling-tolerant lookups for tool arguments: case ids and vocabulary terms.

Pure Python over lists the caller fetched (ids, terms): these decide what a caller meant
and, when nothing matches, which existing values are nearest, so an error can name them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

_CASE_ID = re.compile(r"^\s*(?:IL)?\s*[-_ ]?\s*0*(\d{1,6})\s*$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")


def normalize_case_id(text: str) -> str:
    """`IL-0428` for `il-0428`, `IL0428`, `0428` or `428`; other text stripped and upper-cased."""
    match = _CASE_ID.match(text)
    if match:
        return f"IL-{int(match.group(1)):04d}"
    return text.strip().upper()


def closest_case_ids(wanted: str, ids: Sequence[str], *, limit: int = 3) -> list[str]:
    """The `limit` ids nearest to `wanted`: by number when it has digits, else by spelling.

    An id with the same digits in another order (`IL-4500` for `IL-0450`, a transposition
    typo) comes before the numeric neighbours.
    """
    digits = _DIGITS.findall(wanted)
    if digits:
        number = int(digits[-1])
        wanted_digits = sorted(f"{number:04d}")

        def distance(case_id: str) -> tuple[bool, int, str]:
            found = _DIGITS.findall(case_id)
            if not found:
                return (True, 10**9, case_id)
            transposed = sorted(f"{int(found[-1]):04d}") == wanted_digits
            return (not transposed, abs(int(found[-1]) - number), case_id)

        return sorted(ids, key=distance)[:limit]
    return difflib.get_close_matches(wanted.upper(), list(ids), n=limit, cutoff=0.0)


class TermLike(Protocol):
    slug: str
    name: str
    synonyms: list[str]


T = TypeVar("T", bound=TermLike)


def _spellings(term: TermLike) -> list[str]:
    return [term.slug, term.name, *term.synonyms]


def resolve_term(text: str, terms: Iterable[T]) -> T | None:
    """The term whose slug, name or synonym equals `text` ignoring case (slug first, then name,
    then synonym), or None."""
    wanted = text.strip().casefold()
    terms = list(terms)
    for pick in (lambda t: [t.slug], lambda t: [t.name], lambda t: list(t.synonyms)):
        for term in terms:
            if wanted in (s.casefold() for s in pick(term)):
                return term
    return None


def nearest_terms(text: str, terms: Iterable[T], *, limit: int = 5) -> list[T]:
    """Terms whose spellings contain `text` or resemble it, best first (at most `limit`)."""
    wanted = text.strip().casefold()
    scored: list[tuple[float, str, T]] = []
    for term in terms:
        best = 0.0
        for spelling in _spellings(term):
            candidate = spelling.casefold()
            score = difflib.SequenceMatcher(None, wanted, candidate).ratio()
            # Containment counts, but less than a near-identical spelling: "nccl-timeouts"
            # contains the synonym "timeouts" of another term, yet means "nccl-timeout".
            if wanted and wanted in candidate:
                score = max(score, 0.9)
            elif wanted and len(candidate) >= 4 and candidate in wanted:
                score = max(score, 0.8)
            best = max(best, score)
        if best >= 0.6:
            scored.append((best, term.name, term))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [term for _, _, term in scored[:limit]]


def nearest_strings(text: str, values: Iterable[str], *, limit: int = 5) -> list[str]:
    """Values containing `text` (ignoring case), then those spelled alike, at most `limit`."""
    wanted = text.strip().casefold()
    values = list(values)
    containing = [v for v in values if wanted and wanted in v.casefold()]
    alike = difflib.get_close_matches(wanted, [v.casefold() for v in values], n=limit, cutoff=0.6)
    by_folded = {v.casefold(): v for v in values}
    result = containing + [by_folded[a] for a in alike if by_folded[a] not in containing]
    return result[:limit]
