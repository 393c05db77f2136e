"""What the database holds that a backup does not, which a restore would delete or overwrite.

A restore puts the database in the backup's state. Without `--replace` it must lose
nothing, so it is refused when the database holds (`beyond_backup`):
- cases the backup does not, with their history rows;
- history rows of cases neither holds (deleted since);
- for a case the backup holds, history rows its history lacks (an edit, a retraction, a
  merge made after the backup: the restore replaces the case's history by the backup's),
  or an editorial state (status, retraction reason, merged into) other than its line;
- vocabulary terms the backup does not hold (by facet and slug).

A history row is known by its case, time (to the microsecond) and kind, which the backup
keeps as written: the same row read back from a backup has the same three. `refusal()`
words all of it for an operator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from .folder_swap import shown
from .id_lists import ids_in
from .models import Case, Term

# How a backup's history row is known: (case id, history_date, history_type).
HistoryKey = tuple[str, Any, str]
# A case's editorial columns: (status, retraction_reason, merged_into id).
EditorialState = tuple[str, str | None, str | None]


@dataclass(frozen=True)
class BeyondBackup:
    """What the database holds beyond a backup: case ids (sorted) with how many history
    rows; history rows of deleted cases; changed cases the backup holds with the rows their
    history lacks; terms as (id, facet, slug)."""

    cases: tuple[str, ...] = ()
    cases_history_rows: int = 0
    deleted_cases: tuple[str, ...] = ()
    deleted_history_rows: int = 0
    changed_cases: tuple[str, ...] = ()
    changed_history_rows: int = 0
    terms: tuple[tuple[int, str, str], ...] = ()

    def any(self) -> bool:
        return bool(self.cases or self.deleted_history_rows or self.changed_cases or self.terms)

    @property
    def history_rows(self) -> int:
        """Every history row the backup lacks (what `--replace` deletes)."""
        return self.cases_history_rows + self.deleted_history_rows + self.changed_history_rows

    def refusal(self) -> str:
        """The restore's refusal in plain words: what the database holds that the backup does
        not (counts, the first five ids), and the two ways forward."""
        held = []
        if self.cases:
            rows = self.cases_history_rows
            with_rows = f" with {_count(rows, 'history row')}" if rows else ""
            held.append(f"{_count(len(self.cases), 'case')} ({shown(list(self.cases))}){with_rows}")
        if self.deleted_history_rows:
            held.append(
                f"{_count(self.deleted_history_rows, 'history row')} of "
                f"{_count(len(self.deleted_cases), 'deleted case')} ({shown(list(self.deleted_cases))})"
            )
        if self.changed_cases:
            lacks = (
                f": {_count(self.changed_history_rows, 'history row')} the backup lacks"
                if self.changed_history_rows
                else ""
            )
            held.append(
                f"changes made after the backup to {_count(len(self.changed_cases), 'case')} it holds "
                f"({shown(list(self.changed_cases))}{lacks})"
            )
        if self.terms:
            names = [f"{facet.replace('_', ' ')} {slug}" for _, facet, slug in self.terms]
            held.append(f"{_count(len(self.terms), 'vocabulary term')} ({shown(names)})")
        listing = held[0] if len(held) == 1 else ", ".join(held[:-1]) + " and " + held[-1]
        deletes = self.cases or self.deleted_history_rows or self.terms
        drops = " and ".join(
            (["deletes them"] if deletes else []) + (["drops those changes"] if self.changed_cases else [])
        )
        return (
            f"the database holds what the backup does not: {listing}. Nothing was written. Restore "
            "into an empty database (a new DATABASE_URL, then `manage.py migrate`), or run the restore "
            f"again with --replace, which {drops} in the restore's transaction."
        )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def beyond_backup(
    editorial: Mapping[str, EditorialState], history: Counter[HistoryKey], terms: set[tuple[str, str]]
) -> BeyondBackup:
    """What the database holds beyond a backup of the cases `editorial` (id -> its editorial
    line's state), the history rows `history` (each key counted as often as the backup
    holds it) and the (facet, slug) `terms`. Five queries; the keys of every history row of
    the backup's cases are held in memory (tens of bytes each)."""
    History = Case.history.model
    case_ids = set(editorial)
    stored = set(Case.objects.values_list("id", flat=True))
    extra = stored - case_ids
    outside = dict(
        History.objects.exclude(id__in=ids_in(case_ids))
        .order_by()
        .values("id")
        .annotate(rows=Count("history_id"))
        .values_list("id", "rows")
    )
    deleted = {case_id: rows for case_id, rows in outside.items() if case_id not in extra}
    lacking = (
        Counter(
            History.objects.filter(id__in=ids_in(case_ids)).values_list("id", "history_date", "history_type")
        )
        - history
    )
    changed = {case_id for case_id, _, _ in lacking}
    for case_id, *state in (
        Case.objects.filter(id__in=ids_in(case_ids))
        .values_list("id", "status", "retraction_reason", "merged_into_id")
        .iterator(chunk_size=2000)
    ):
        if tuple(state) != editorial[case_id]:
            changed.add(case_id)
    return BeyondBackup(
        cases=tuple(sorted(extra)),
        cases_history_rows=sum(rows for case_id, rows in outside.items() if case_id in extra),
        deleted_cases=tuple(sorted(deleted)),
        deleted_history_rows=sum(deleted.values()),
        changed_cases=tuple(sorted(changed)),
        changed_history_rows=sum(lacking.values()),
        terms=tuple(
            sorted(
                (term_id, facet, slug)
                for term_id, facet, slug in Term.objects.values_list("id", "facet", "slug")
                if (facet, slug) not in terms
            )
        ),
    )
