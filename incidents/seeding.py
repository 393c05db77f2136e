"""Seeding: which stored cases an import with `seed` (`import_cases --seed`, what `make data`
runs on every `make run`) may replace from their files, read from the case history.

A stored case is replaced from its file exactly when nobody changed it here since an import
last wrote it: its latest history row is an import (`history.IMPORT`, written with no user
by `services.import_case_files`). Any other latest row keeps the case as stored: an editor's
save (admin, write API), a status change (a retraction among them), a merge (both cases,
and ids merged into the duplicate earlier), an accepted correction
(`services.note_in_history`), a term rename or re-derived error code that rewrote the
document, and a case with no history at all. A merged-away id is kept too (its latest row is
the merge), so it is never recreated.

A kept case's file is compared with the document of its last import, so the operator is
told which corrected files did not land (`KeptCase.file_changed`) and not, on every start,
about every case an editor ever touched.

Vocabulary terms keep no history, so nothing tells an edited term from a seeded one: seeding
leaves every held term as stored (`services.importing._not_held_terms`), as `--new-only` does.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import OuterRef, Subquery

from . import history
from .models import Case
from .validation import LoadedDocument


@dataclass(frozen=True)
class LastChange:
    """A case's latest history row: why, by whom (None: an import, a public proposal, a
    vocabulary change without a user) and when."""

    reason: str
    user: str | None
    when: datetime.datetime

    @property
    def is_import(self) -> bool:
        return self.reason == history.IMPORT and self.user is None


@dataclass(frozen=True)
class Held:
    """A document whose id names a stored case that was changed here since its last import
    (`LastChange`, None when the case has no history), with that case's editorial state."""

    item: LoadedDocument
    status: str
    merged_into: str | None
    last_change: LastChange | None

    @property
    def case_id(self) -> str:
        return self.item.document["id"]


@dataclass(frozen=True)
class KeptCase:
    """A stored case a seeding import left as stored because it was changed here.
    `file_changed`: its file differs both from the document its last import wrote and from
    the case as stored (a correction in the file that did not land; always False for a
    merged-away id, whose file is never imported)."""

    case_id: str
    file: str
    status: str
    merged_into: str | None
    last_change: LastChange | None
    file_changed: bool


def split_held(items: list[LoadedDocument]) -> tuple[list[LoadedDocument], list[Held]]:
    """`items` in two: those a seeding import writes (an id the library does not hold, or a
    case whose latest history row is an import) in file order, and those of cases changed
    here since. A document without a string id stays with the first, for validation to
    report. Two queries."""
    ids = [case_id for item in items if (case_id := _id_of(item)) is not None]
    latest = Case.history.filter(id=OuterRef("id")).order_by("-history_date", "-history_id")
    stored = {
        case_id: (status, merged_into, last)
        for case_id, status, merged_into, last in Case.objects.filter(id__in=ids)
        .annotate(last=Subquery(latest.values("history_id")[:1]))
        .values_list("id", "status", "merged_into_id", "last")
    }
    changes = _last_changes([last for _, _, last in stored.values() if last is not None])
    writable: list[LoadedDocument] = []
    held: list[Held] = []
    for item in items:
        case_id = _id_of(item)
        if case_id is None or case_id not in stored:
            writable.append(item)
            continue
        status, merged_into, last = stored[case_id]
        change = changes.get(last) if last is not None else None
        if change is not None and change.is_import:
            writable.append(item)
        else:
            held.append(Held(item, status, merged_into, change))
    return writable, held


def last_imported_documents(case_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Case id -> the document its latest import wrote (its latest history row with the
    reason `history.IMPORT` and no user); a case never imported is left out. One query."""
    if not case_ids:
        return {}
    imports = Case.history.filter(history_change_reason=history.IMPORT, history_user__isnull=True)
    latest = imports.filter(id=OuterRef("id")).order_by("-history_date", "-history_id")
    last = (
        Case.objects.filter(id__in=case_ids)
        .annotate(last=Subquery(latest.values("history_id")[:1]))
        .filter(last__isnull=False)
        .values("last")
    )
    return dict(Case.history.filter(history_id__in=last).values_list("id", "document"))


def _last_changes(history_ids: list[int]) -> dict[int, LastChange]:
    """History row id -> its `LastChange`. One query."""
    username = f"history_user__{get_user_model().USERNAME_FIELD}"
    return {
        history_id: LastChange(reason or "", user, when)
        for history_id, reason, user, when in Case.history.filter(history_id__in=history_ids).values_list(
            "history_id", "history_change_reason", username, "history_date"
        )
    }


def _id_of(item: LoadedDocument) -> str | None:
    case_id = item.document.get("id") if isinstance(item.document, dict) else None
    return case_id if isinstance(case_id, str) else None
