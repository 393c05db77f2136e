"""A first bulk import's neighbour lists as a step of their own.

Scoring every pair of a library that mostly changed (a first import of thousands of
cases) costs more than the rest of the import. An import that allows it (`later()`,
`import_case_files(defer_neighbours=True)`) leaves those lists to the next
`similarity.rebuild_neighbours()` (`manage.py rebuild_search --neighbours`, which
`import_cases` runs right after its import unless told `--neighbours-later`): every
published case's profile is marked `neighbours_pending`, and until the rebuild
`similar_cases` computes a pending case's list on the fly from the stored profiles, so
similar cases stay right meanwhile. Imports made while a rebuild is pending mark their
cases pending too (the rebuild covers them).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from .models import CaseProfile

_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar("defer_neighbours", default=False)


@contextmanager
def later() -> Iterator[None]:
    """Within this block a write that changes most of the library leaves its neighbour
    lists pending instead of scoring every pair."""
    token = _allowed.set(True)
    try:
        yield
    finally:
        _allowed.reset(token)


def allowed() -> bool:
    return _allowed.get()


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
