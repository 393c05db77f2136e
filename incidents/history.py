"""Case history: one row per editorial change, with who, when, why and the whole document.

The rows are django-simple-history's historical case table (`Case.history`), chosen over
django-reversion because its rows are a plain queryable table (who, when, reason, every
column) with an admin history view, where reversion keeps serialised blobs. Rows are
written here, explicitly, once per change and after the case's child rows are written
(`SIMPLE_HISTORY_ENABLED` is off, so a save alone records nothing); each keeps the case
document of that moment, so a field-level diff covers sources, terms and scale tables too.

A row's time (`history_date`) is the case's `modified` as that change wrote it, not a clock
read of its own: the history (`/cases/{id}/history`, `GET /api/cases/{id}/history`) and the
change feed (`GET /api/changes`) give one write one time, to the microsecond. So every write
that records history sets `modified` first (import, `save_case_document`, status changes,
merges, a re-derived error code).
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, JSONField, OuterRef, Q, QuerySet, Subquery

from .bulk_sql import insert_rows
from .document_model import case_model
from .documents import case_document
from .id_lists import ids_in
from .models import NOT_IN_HISTORY, Case

# history_type values, as django-simple-history spells them.
CREATED, CHANGED = "+", "~"
# The reason of the rows `services.import_case_files` writes (with no user): a seeding import
# replaces a case from its file only while its latest row is one (`seeding`).
IMPORT = "import"
# The reasons of the rows a public proposal writes: its draft (with no user) and its acceptance.
PROPOSAL = "public proposal"
PROPOSAL_ACCEPTED = "proposal accepted"
# Document sections whose keys are diffed one by one (`facts.severity`); lists are whole.
NESTED_SECTIONS = ("facts", "environment", "symptoms", "root_cause")

User = AbstractBaseUser | AnonymousUser | None


@dataclass(frozen=True)
class FieldChange:
    """One changed field: its path in the case document (`facts.severity`, `sources`) or
    an editorial field (`retraction_reason`, `merged_into`), the value before and after."""

    field: str
    old: Any
    new: Any


@dataclass(frozen=True)
class Revision:
    """One entry of a case's history, newest first in `case_history`."""

    number: int  # 1 for the first recorded state
    when: datetime.datetime
    user: str | None  # username, None for an import or a public proposal
    reason: str
    created: bool
    status: str
    changes: list[FieldChange]

    @property
    def action(self) -> str:
        """What this entry did, by whom, in words (the history page's line)."""
        if self.created:
            if self.user:
                return f"Created by {self.user}"
            return "Created from a public proposal" if self.reason == PROPOSAL else "Created by an import"
        if self.reason == PROPOSAL_ACCEPTED and self.user:
            return f"Proposal accepted by {self.user}"
        return f"Changed by {self.user or 'an import'}"

    @property
    def status_label(self) -> str:
        return status_label(self.status)

    @property
    def stated_reason(self) -> str:
        """The reason as the page shows it: empty for the one `services.change_status`
        writes when none is given (`status: in_review`), which the status beside it says."""
        return "" if self.reason == f"status: {self.status}" else self.reason


def status_label(status: str) -> str:
    """A case status in words (`in_review` -> `In review`); an unknown value as it is."""
    return str(Case.Status(status).label) if status in Case.Status.values else status


BATCH = 500


def record(case_id: str, *, user: User = None, reason: str = "", created: bool = False) -> None:
    """Write the history row of `case_id` as it is now (its document and editorial fields),
    at its `modified` time.

    Call after the case and its child rows (and `modified`) are written, inside the same
    transaction.
    """
    record_many([case_id], user=user, reason=reason, created_ids={case_id} if created else set())


def record_many(
    case_ids: list[str], *, user: User = None, reason: str = "", created_ids: Collection[str] = ()
) -> None:
    """History rows for many cases written by one change (an edit, a re-derivation): per
    batch of 500, the cases with their documents (`documents_in_batches`), written as
    `record_written` writes an import's rows (one insert)."""
    for written in documents_in_batches(case_ids):
        record_written(written, user=user, reason=reason, created_ids=created_ids)


def documents_in_batches(case_ids: list[str]) -> Iterator[list[tuple[Case, dict[str, Any]]]]:
    """The cases of `case_ids` with their documents as served now, `BATCH` cases a time (8
    queries a batch), so that a change touching many cases holds one batch at once."""
    for start in range(0, len(case_ids), BATCH):
        batch = Case.objects.with_document().filter(id__in=ids_in(case_ids[start : start + BATCH]))
        yield [(case, dict(case_document(case))) for case in batch]


def record_written(
    written: list[tuple[Case, dict[str, Any]]],
    *,
    user: User = None,
    reason: str = "",
    created_ids: Collection[str] = (),
) -> int:
    """History rows for cases an import has just written, from what it wrote: each case's
    columns (as `Case` objects, editorial columns filled in) and its document, each row at
    its case's `modified` (see the module docstring). One plain insert per call and no read
    (`record_many` reads the cases first). Returns rows written."""
    History = Case.history.model
    who = user.pk if user is not None and user.is_authenticated else None
    columns = [field.attname for field in Case._meta.concrete_fields if field.name not in NOT_IN_HISTORY]
    return insert_rows(
        History,
        [
            *columns,
            "document",
            "history_date",
            "history_type",
            "history_user_id",
            "history_change_reason",
        ],
        (
            (
                *(getattr(case, column) for column in columns),
                document,
                case.modified,
                CREATED if case.id in created_ids else CHANGED,
                who,
                reason or None,
            )
            for case, document in written
        ),
    )


@cache
def _field_order() -> dict[str, int]:
    """Each document field's place in the schema (`facts.severity`, `sources`)."""
    return {field.path: place for place, field in enumerate(case_model().fields)}


def _flatten(row: Any) -> dict[str, Any]:
    document = dict(row.document or {})
    flat: dict[str, Any] = {}
    for key, value in document.items():
        if key in NESTED_SECTIONS and isinstance(value, dict):
            for inner, inner_value in value.items():
                flat[f"{key}.{inner}"] = inner_value
        else:
            flat[key] = value
    # In the schema's order: PostgreSQL's jsonb gives a stored document's keys in its own
    # (shortest first), so the diff listed `affected` before `symptoms.error_codes` there
    # and after it on SQLite.
    order = _field_order()
    flat = dict(sorted(flat.items(), key=lambda item: order.get(item[0], len(order))))
    flat["retraction_reason"] = row.retraction_reason
    flat["merged_into"] = row.merged_into_id
    return flat


def diff(old_row: Any | None, new_row: Any) -> list[FieldChange]:
    """Field-level changes from one history row to the next (every set field for the
    first row), in the schema's order of the document's fields then the editorial fields,
    on either database."""
    new = _flatten(new_row)
    old = _flatten(old_row) if old_row is not None else {}
    if old_row is None:
        return [FieldChange(key, None, value) for key, value in new.items() if value not in (None, [], "")]
    keys = list(new) + [key for key in old if key not in new]
    return [FieldChange(key, old.get(key), new.get(key)) for key in keys if old.get(key) != new.get(key)]


def first_published() -> Subquery:
    """The time of a case's first history row as published (None without one), as an
    expression for `Case.objects.update(added=...)`: what `Case.added` says, read back from
    the history (a restored backup, whose history holds it)."""
    rows = Case.history.filter(id=OuterRef("id"), status=Case.Status.PUBLISHED)
    return Subquery(rows.order_by("history_date", "history_id").values("history_date")[:1])


def content_changed() -> Subquery:
    """When a case's content last changed, as an expression for `Case.objects.annotate`: the
    time of its newest history row whose document differs from the row before it (its first
    row counts as a change); None without history.

    `Case.modified` moves on every write, and some change no content: an accepted correction
    noted in the history (`services.note_in_history`), the kept case of a merge, a restore
    (`backup.py`), which writes every case anew at the restore's time while its history keeps
    the times of its changes. A status change is one: the document holds the status. One
    correlated subquery in the query that reads the case (no query of its own); documents
    compare as JSON values (jsonb on PostgreSQL, the stored text on SQLite, which each write
    produces from the one document function in the schema's order)."""
    History = Case.history.model
    row_before = (
        History.objects.filter(id=OuterRef("id"))
        .filter(
            Q(history_date__lt=OuterRef("history_date"))
            | Q(history_date=OuterRef("history_date"), history_id__lt=OuterRef("history_id"))
        )
        .order_by("-history_date", "-history_id")
        .values("document")[:1]
    )
    changes = (
        History.objects.filter(id=OuterRef("id"))
        .annotate(document_before=Subquery(row_before, output_field=JSONField()))
        .filter(Q(document_before__isnull=True) | ~Q(document_before=F("document")))
        .order_by("-history_date", "-history_id")
        .values("history_date")[:1]
    )
    return Subquery(changes)


def history_rows(case_id: str) -> QuerySet:
    """History rows of one case, oldest first, with their users: one query."""
    return (
        Case.history.filter(id=case_id).select_related("history_user").order_by("history_date", "history_id")
    )


def case_history(case_id: str) -> list[Revision]:
    """Every recorded change of `case_id`, newest first, each with its field-level diff
    against the state before it. One query; an empty list for a case without history."""
    return list(revisions_by_row(case_id).values())[::-1]


def revisions_by_row(case_id: str) -> dict[int, Revision]:
    """`case_history`'s revisions by the `history_id` of the row each reads, oldest first:
    for the admin's history view, which lists the rows themselves. One query."""
    revisions = {}
    previous = None
    for number, row in enumerate(history_rows(case_id), start=1):
        revisions[row.history_id] = Revision(
            number=number,
            when=row.history_date,
            user=row.history_user.get_username() if row.history_user else None,
            reason=row.history_change_reason or "",
            created=row.history_type == CREATED,
            status=row.status,
            changes=diff(previous, row),
        )
        previous = row
    return revisions
