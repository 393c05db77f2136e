"""Retracted cases a query would have matched. Search leaves them out, as every list does;
when nothing published matches and they do, a note names them with their reasons
(`selectors.lookup.retracted_matches_note`), so a reader knows the knowledge exists and why
it was withdrawn, rather than reading "nothing matched". So too for a word of the query no
published case contains, searched without (`retracted_holding`): "No case contains
“turbomind”" was said while a retracted case did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from incidents import store_cache
from incidents.models import Case

from .backends import get_backend
from .fusion import fuse
from .query import Atom
from .ranking import lexical_rows
from .text import words as words_of

if TYPE_CHECKING:
    from .planning import SearchPlan


def retracted_reasons() -> dict[str, str]:
    """Every retracted case's id -> its retraction reason ("" when none was given): one query,
    none from the store cache once read in a store generation (a retraction changes it)."""

    def read() -> dict[str, str]:
        rows = Case.objects.filter(status=Case.Status.RETRACTED).order_by("id")
        return {case_id: reason or "" for case_id, reason in rows.values_list("id", "retraction_reason")}

    return store_cache.cached("retracted-reasons", read)


def retracted_matches(plan: SearchPlan) -> tuple[tuple[str, str], ...]:
    """(id, reason) of the retracted cases that would be matches of a ranked `plan` (the same
    filters and reference tokens apply: `SearchPlan.retracted`), best first; empty for other
    plans. Matches by the lexical ranking alone, fused as search fuses it (`fusion.fuse`, no
    semantic scores: retracted cases have no stored vectors), so a case holding every word
    of the query is one, and one holding few of many words is not.

    Queries: `retracted_reasons` (none from the store cache), and when any case is retracted
    the lexical ranking of those the plan allows (one)."""
    if plan.kind != "ranked" or plan.parsed is None or plan.retracted is None:
        return ()
    reasons = retracted_reasons()
    if not reasons:
        return ()
    rows = lexical_rows(get_backend(), plan.parsed, plan.retracted)
    return tuple((c.case_id, reasons.get(c.case_id, "")) for c in fuse(rows, None) if c.is_match)


def retracted_holding(words: list[str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each of `words` (as typed; words no published case contains) that retracted cases
    contain -> their (id, reason), by id; a word none contains is left out. Queries:
    `retracted_reasons` (none from the store cache), and when any case is retracted whether
    they contain the words (one: `Backend.atom_hits_among` of the retracted cases)."""
    reasons = retracted_reasons()
    if not reasons or not words:
        return {}
    atoms = [Atom(tuple(words_of(word.lower()))) for word in words]
    held: dict[str, list[str]] = {}
    hits = get_backend().atom_hits_among(atoms, list(reasons), status=Case.Status.RETRACTED)
    for case_id, index in sorted(hits):
        held.setdefault(words[index], []).append(case_id)
    return {word: tuple((i, reasons[i]) for i in ids) for word, ids in held.items()}
