"""Reads of one case's change history for its page and the API: the case whose history it
is, its revisions, and the merges that tie it to other cases.

A case merged into another keeps its own history (its import, every edit, and the merge
itself, written on its side by `services.merge_cases`): its case page and API document
redirect to the kept case, but `/cases/<id>/history` and `GET /api/cases/<id>/history` stay
its own, saying which case it was merged into. The kept case's history names the cases
merged into it, so each history links to the other.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from ..history import Revision, case_history
from ..models import Case
from .cases import merged_from
from .spelling import normalize_case_id

# The statuses whose history readers may read: drafts and cases in review have none to show.
STATUSES_WITH_HISTORY = (*Case.PUBLIC_STATUSES, Case.Status.MERGED)


@dataclass(frozen=True)
class CaseHistory:
    """One case's history as its page and the API show it.

    `merged_into`: the kept case (for a case merged away, else None) and `merged_on`, the
    time of the history row that merged it; `merged_from`: ids of the cases merged into this
    one, sorted (empty for most)."""

    case: Case
    revisions: list[Revision]  # newest first
    merged_into: Case | None
    merged_on: datetime.datetime | None
    merged_from: list[str]


def history_case_exists(case_id: str) -> bool:
    """Whether a published, retracted or merged case has exactly this id: one indexed query
    (the history page's `exists` for conditional GETs)."""
    return Case.objects.filter(id=case_id, status__in=STATUSES_WITH_HISTORY).exists()


def history_spelling(case_id: str) -> str | None:
    """The stored id of the case with a readable history that `case_id` spells otherwise
    (`il-0433`, `IL0433`, `433` -> `IL-0433`, a merged case included: its history is its
    own, not the kept case's); None when there is none or `case_id` is that id. One query."""
    stored = (
        Case.objects.filter(id__iexact=normalize_case_id(case_id), status__in=STATUSES_WITH_HISTORY)
        .values_list("id", flat=True)
        .first()
    )
    return stored if stored is not None and stored != case_id else None


def history_of(case_id: str) -> CaseHistory | None:
    """The history of the published, retracted or merged case with exactly this id, None
    when there is none. Three queries: the case with its kept case, its history rows with
    their users, the ids merged into it."""
    rows = Case.objects.filter(id=case_id, status__in=STATUSES_WITH_HISTORY)
    case = rows.select_related("merged_into").first()
    if case is None:
        return None
    revisions = case_history(case.id)
    merged_into = case.merged_into if case.status == Case.Status.MERGED else None
    # The row that merged it is its first as merged: an id merged into it earlier moving on
    # to a later kept case writes rows on those ids, not on this one.
    merged_on = next((r.when for r in reversed(revisions) if r.status == Case.Status.MERGED), None)
    kept_over = merged_from(case)  # one query: `case` was not read by `case_by_id`
    return CaseHistory(case, revisions, merged_into, merged_on if merged_into else None, kept_over)
