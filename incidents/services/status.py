"""Workflow writes: moving a case along its statuses (`change_status`) and recording an
editorial event that changes no field in its history (`note_in_history`).
"""

from __future__ import annotations

from django.db import transaction

from .. import history, store_cache, workflow
from ..line_endings import unix_newlines
from ..locking import serialize_case_writes
from ..models import Case
from .writing import refresh_derived


@transaction.atomic
def change_status(case_id: str, target: str, *, user: history.User, reason: str = "") -> Case:
    """Move a case along the workflow (`workflow.TRANSITIONS`); retracting needs a reason.

    Raises WorkflowError for a transition that does not exist or a case not to be published
    as it stands (no symptoms description: `workflow.check_publishable`), NotAllowed when
    the user lacks the role, ValueError when a retraction has no reason. The search index,
    neighbours and history follow in the same transaction.
    """
    serialize_case_writes()
    case = Case.objects.select_for_update().get(id=case_id)
    workflow.check_transition(user, case.status, target)
    if target == Case.Status.PUBLISHED:
        workflow.check_publishable(case)
    reason = unix_newlines(reason.strip())
    if target == Case.Status.RETRACTED and not reason:
        raise ValueError("a retraction needs a reason")
    case.status = target
    case.retraction_reason = reason if target == Case.Status.RETRACTED else None
    case.save(update_fields=["status", "retraction_reason", "modified"])
    if target == Case.Status.PUBLISHED and case.added is None:
        # Added at the time of this change (`modified`, which the save above set).
        Case.objects.filter(id=case.id).update(added=case.modified)
        case.added = case.modified
    refresh_derived([case.id])
    history.record(case.id, user=user, reason=reason or f"status: {target}")
    return case


@transaction.atomic
def note_in_history(case_id: str, *, user: history.User, reason: str) -> Case:
    """A history row for an editorial event that changes no field of the case (an accepted
    correction proposal: `reason` says which), at a new `modified` time like every write
    (`history`'s one write, one time): the change feed lists the case and its `ETag` moves,
    as its history page changed. Raises Case.DoesNotExist."""
    serialize_case_writes()
    case = Case.objects.select_for_update().get(id=case_id)
    case.save(update_fields=["modified"])
    store_cache.changed([case.id])
    history.record(case.id, user=user, reason=reason)
    return case
