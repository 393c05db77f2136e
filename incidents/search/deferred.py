"""A first bulk import's passage embeddings and neighbour lists as a step of their own.

Scoring every pair of a library that mostly changed (a first import of thousands of
cases) costs more than the rest of the import, and so does encoding its passages (the
sentence model reads about 5 cases a second on 2 cores). An import that allows it
(`later()`, `import_case_files(defer_neighbours=True)`) leaves both to the next
`index.finish_pending()` (`manage.py rebuild_search --neighbours`, which `import_cases`
runs right after its import unless told `--neighbours-later`): the stored vectors of
passages it changed are dropped, every published case's profile is marked
`neighbours_pending`, and until the step:
- search ranks the cases without vectors by their words alone (the semantic ranking
  covers the cases that have vectors);
- `similar_cases` computes a pending case's list on the fly from the stored profiles,
  with no semantic part for a case not encoded yet.
The step encodes those passages outside the write lock, then stores every list. Imports
made while the step is pending are encoded at once and mark their cases pending (the step
covers their lists).
"""

from __future__ import annotations

import contextvars
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager

from incidents.models import Case

from .models import CaseNeighbour, CaseProfile

_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar("defer_neighbours", default=False)


@contextmanager
def later() -> Iterator[None]:
    """Within this block a write that changes most of the library leaves its passage
    embeddings and neighbour lists to the step after it (`index.finish_pending`) instead of
    encoding its passages and scoring every pair."""
    token = _allowed.set(True)
    try:
        yield
    finally:
        _allowed.reset(token)


def allowed() -> bool:
    return _allowed.get()


def leaves_to_the_step(case_ids: Collection[str]) -> bool:
    """Whether a write of `case_ids` leaves embeddings and lists to the step: deferral is
    allowed (`later()`) and they are more than half of the published cases. One or two
    queries (the published count, then their ids when it could be so)."""
    if not allowed():
        return False
    cases = Case.objects.published()
    if len(set(case_ids)) * 2 <= cases.count():
        return False  # too few, whichever they are: no need to read every published id
    published = set(cases.values_list("id", flat=True))
    return len(published.intersection(case_ids)) * 2 > len(published)


def leave_every_list() -> None:
    """Drop every stored list and mark every profile pending (the step stores them all)."""
    CaseNeighbour.objects.all().delete()
    mark()


def pending() -> bool:
    """Whether some neighbour lists wait for a rebuild. One query."""
    return CaseProfile.objects.filter(neighbours_pending=True).exists()


def pending_for(case_id: str) -> bool:
    """Whether `case_id`'s list waits for a rebuild. One query."""
    return CaseProfile.objects.filter(case_id=case_id, neighbours_pending=True).exists()


def mark(case_ids: Iterable[str] | None = None) -> None:
    """Mark these cases' lists (every case's, with None) as waiting for a rebuild."""
    rows = CaseProfile.objects.all()
    if case_ids is not None:
        rows = rows.filter(case_id__in=list(case_ids))
    rows.update(neighbours_pending=True)


def done() -> None:
    """Every list is stored (after a full rebuild)."""
    CaseProfile.objects.filter(neighbours_pending=True).update(neighbours_pending=False)
