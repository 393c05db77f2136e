"""Spelling-tolerant matching of what a caller typed: case ids, vocabulary terms, names.

Pure Python over lists the caller fetched: these decide what a caller meant and, when
nothing matches, which existing values are nearest, so an error can name them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

_CASE_ID = re.compile(r"^\s*(?:IL)?\s*[-_ ]?\s*0*(\d{1,6})\s*$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
# The longest text read as a case id, by every door (a page's URL, an API path, a tool's
# `id`): an id is `IL-` and up to 6 digits, so longer text names no case and nothing near
# one, and is answered without a lookup (matching it against every id costs time growing
# with its length).
MAX_CASE_ID_CHARS = 40
# Names a caller gives a parameter (or body key, or tool argument) that another door or a
# common API calls it, which spelling cannot find: a log is `text` to POST /api/match and
# match_log but `log` to triage; a query is `q`; a page size is `page_size`.
NAMES_MEANT: dict[str, tuple[str, ...]] = {
    "log": ("text",),
    "logs": ("text",),
    "text": ("log",),
    "query": ("q",),
    "search": ("q",),
    "per_page": ("page_size",),
    "limit": ("page_size",),
    # A proposal's sources are `source_urls`: four letters from `sources`, so no slip of it
    # (difflib's ratio, 0.78, had found it by letters in common).
    "sources": ("source_urls",),
}


def normalize_case_id(text: str) -> str:
    """`IL-0428` for `il-0428`, `IL0428`, `il428`, `0428` or `428`; other text stripped and
    upper-cased."""
    match = _CASE_ID.match(text)
    if match:
        return f"IL-{int(match.group(1)):04d}"
    return text.strip().upper()


def looks_like_case_id(text: str) -> bool:
    """Whether `text` could be an id typed with a slip (`IL-9428`, `IL-0427x`, `il 428`): it
    has a digit (every id is `IL-` and digits) and is at most `MAX_CASE_ID_CHARS` long. Only
    such text has closest ids; for other text (`nccl-timeout`, `nope`) spelling alone would
    rank the ids in no meaningful order (the newest first)."""
    return len(text) <= MAX_CASE_ID_CHARS and _DIGITS.search(text) is not None


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def closest_case_ids(wanted: str, ids: Sequence[str], *, limit: int = 3) -> list[str]:
    """The `limit` ids nearest to `wanted`: by number when it has digits, else by spelling.

    Likely typos come first: an id one digit away (`IL-9428`, `IL-04281` or `IL-048` for
    `IL-0428`: one wrong, extra or missing digit), the same digits in another order
    (`IL-4500` for `IL-0450`) or a numeric neighbour within 2. They are ordered by their
    distance to the number typed; when more digits were typed than the id has (a digit too
    many), by its distance to the number typed or to it without its last digit, whichever
    is nearer: an extra digit is most often a key struck once more at the end, and 4290
    itself is about as far from 429 as from 490, so `IL-04290` names IL-0429 before
    IL-0490 and IL-0492 (while `IL-0440` names IL-0439 and IL-0441, not IL-0044). Then the
    rest by numeric distance.

    No ids for text that does not look like an id (`looks_like_case_id`).
    """
    if not looks_like_case_id(wanted):
        return []
    digits = _DIGITS.findall(wanted)
    # Case numbers have at most 6 digits; a pasted 10,000-digit run would overflow int().
    typed = digits[-1][:9]
    number = int(typed)
    forms = {typed, typed.lstrip("0") or "0", f"{number:04d}"}

    def distance(case_id: str) -> tuple[int, int, str]:
        found = _DIGITS.findall(case_id)
        if not found:
            return (2, 10**9, case_id)
        stored = found[-1]
        other = int(stored)
        stored_forms = {stored, stored.lstrip("0") or "0"}
        one_digit_off = min(_edit_distance(a, b) for a in forms for b in stored_forms) <= 1
        transposed = sorted(f"{other:04d}") == sorted(f"{number:04d}")
        if one_digit_off or transposed or abs(other - number) <= 2:
            nearness = abs(other - number)
            if len(typed) > len(stored):  # a digit too many: perhaps struck once more at the end
                nearness = min(nearness, abs(other - number // 10))
            return (0, nearness, case_id)
        return (1, abs(other - number), case_id)

    return sorted(ids, key=distance)[:limit]


class TermLike(Protocol):
    @property
    def slug(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def synonyms(self) -> Sequence[str]: ...


T = TypeVar("T", bound=TermLike)


def spelling_key(text: str) -> str:
    """How two spellings compare: letter case, hyphens, underscores and spacing ignored
    (`NCCL timeout`, `nccl-timeout` and `nccl_timeout` are the same)."""
    return " ".join(text.casefold().replace("-", " ").replace("_", " ").split())


def _spellings(term: TermLike) -> list[str]:
    return [term.slug, term.name, *term.synonyms]


def resolve_term(text: str, terms: Iterable[T]) -> T | None:
    """The term whose slug, name or synonym is `text` (compared by `spelling_key`; slug
    first, then name, then synonym), or None."""
    wanted = spelling_key(text)
    terms = list(terms)
    for pick in (lambda t: [t.slug], lambda t: [t.name], lambda t: list(t.synonyms)):
        for term in terms:
            if wanted in (spelling_key(s) for s in pick(term)):
                return term
    return None


def slips(a: str, b: str, *, at_most: int) -> int | None:
    """The slips between `a` and `b` (a letter wrong, missing or extra, or two neighbours
    swapped: the optimal string alignment distance), or None when more than `at_most`. Two
    lengths further apart than `at_most` are answered without comparing the letters, so a
    long text against short spellings costs time linear in the text."""
    if abs(len(a) - len(b)) > at_most:
        return None
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i]
        for j in range(1, len(b) + 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        if min(current) > at_most:
            return None  # every alignment already has more slips
        before, previous = previous, current
    return previous[-1] if previous[-1] <= at_most else None


def slips_allowed(typed: str) -> int:
    """How many slips a spelling may be from `typed` and still be close: one per four
    characters typed, at least one (`ncl` -> NCCL, `trainig-hang` -> Training hang, `xid-97`
    -> Xid 79 or Xid 94 but not Xid 74)."""
    return max(1, len(typed) // 4)


def closeness(typed: str, spelling: str) -> float:
    """How close `spelling` is to what was `typed`, both compared by `spelling_key`; 0 when
    it is not close: 1 the same, 0.9 when it contains what was typed, 0.8 when it is a word
    (4 characters or more) of it, else 1 - slips / length within `slips_allowed`.

    Letters in common are not closeness: by difflib's ratio (0.6 and up was "alike") `nope`
    resembled ENOSPC (`n`, `o`, `p` in order) and `/api/codes/nope` suggested it; three
    slips from four characters typed is another word."""
    return Typed(typed).closeness(spelling)


class Typed:
    """What was typed, keyed once (`spelling_key`) to be compared with many spellings
    (`closeness`): a 20,000-character path against every term's spellings keyed it again
    for each, half a second a page."""

    def __init__(self, typed: str) -> None:
        self.key = spelling_key(typed)
        self.allowed = slips_allowed(self.key)
        self.letters = Counter(self.key)

    def closeness(self, spelling: str) -> float:
        """`closeness(typed, spelling)` for this text."""
        wanted, candidate = self.key, spelling_key(spelling)
        if not wanted:
            return 0.0
        if wanted == candidate:
            return 1.0
        score = 0.0
        found = self._slips(candidate)
        if found is not None:
            score = 1 - found / max(len(wanted), len(candidate))
        # Containment counts, but less than a near-identical spelling: "nccl-timeouts" contains
        # a generic synonym such as "timeouts" of another term, yet means "nccl-timeout".
        if wanted in candidate:
            score = max(score, 0.9)
        elif len(candidate) >= 4 and candidate in wanted:
            score = max(score, 0.8)
        return score

    def _slips(self, candidate: str) -> int | None:
        if abs(len(self.key) - len(candidate)) > self.allowed:
            return None
        # Each slip changes at most two letter counts (a wrong letter: one out, one in), so
        # counts further apart than twice the slips allowed rule it out before the table.
        letters = Counter(candidate)
        differ = sum(((self.letters - letters) + (letters - self.letters)).values())
        if differ > 2 * self.allowed:
            return None
        return slips(self.key, candidate, at_most=self.allowed)


def nearest_terms(text: str, terms: Iterable[T], *, limit: int = 5) -> list[T]:
    """Terms with a spelling close to `text` (`closeness`), closest first (at most `limit`)."""
    typed = Typed(text)
    scored: list[tuple[float, str, T]] = []
    for term in terms:
        best = max(typed.closeness(spelling) for spelling in _spellings(term))
        if best > 0:
            scored.append((best, term.name, term))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [term for _, _, term in scored[:limit]]


def names_meant(
    name: str,
    accepted: Sequence[str],
    *,
    limit: int = 1,
    other_names: Mapping[str, tuple[str, ...]] = NAMES_MEANT,
) -> list[str]:
    """The accepted names an unknown parameter `name` may mean, at most `limit`: the one a
    known other name stands for first (`other_names`, any case: `log` -> `text` where `text`
    is accepted), then those spelt alike (`nearest_strings`: `qq` -> `q`, `logs` -> `log`)."""
    known = [meant for meant in other_names.get(name.strip().casefold(), ()) if meant in accepted]
    alike = [near for near in nearest_strings(name, accepted, limit=limit) if near not in known]
    return [*known, *alike][:limit]


def nearest_strings(text: str, values: Iterable[str], *, limit: int = 5) -> list[str]:
    """The `values` close to `text` by the one rule of every "did you mean" (`closeness`: the
    same spelling, one holding the other, or a few slips), closest first and in their given
    order among equals; at most `limit`.

    Parameter, argument, method and body-key names, sort names and an import's unknown
    terms are suggested by it, as the vocabulary's terms are (`nearest_terms`): by difflib's
    ratio (at 0.6, and 0.5 for an import) `nope` resembled `enospc`, and `Xid 7900` was
    told 'Xid 95' and 'Xid 94' beside 'Xid 79'."""
    typed = Typed(text)
    scored = [
        (-score, index, value) for index, value in enumerate(values) if (score := typed.closeness(value)) > 0
    ]
    return [value for _, _, value in sorted(scored, key=lambda item: item[:2])[:limit]]
