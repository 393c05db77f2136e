"""Merging a duplicate case into the case that stays (`merge_cases`)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import history, workflow
from ..line_endings import unix_newlines
from ..locking import serialize_case_writes
from ..models import Case
from .writing import refresh_derived


@transaction.atomic
def merge_cases(duplicate_id: str, kept_id: str, *, user: history.User, reason: str = "") -> Case:
    """Merge a duplicate into the case that stays: the duplicate becomes `merged`, its id
    redirects to `kept_id` from then on (and is never reused); ids merged into the duplicate
    earlier now point at the kept case too. Reviewers only.

    Raises NotAllowed, or WorkflowError when either case cannot take part (the same case,
    already merged, or a kept case that is not published).
    """
    if not workflow.is_reviewer(user):
        raise workflow.NotAllowed("only a reviewer may merge cases")
    if duplicate_id == kept_id:
        raise workflow.WorkflowError("a case cannot be merged into itself")
    serialize_case_writes()
    cases = {c.id: c for c in Case.objects.select_for_update().filter(id__in=[duplicate_id, kept_id])}
    for case_id in (duplicate_id, kept_id):
        if case_id not in cases:
            raise Case.DoesNotExist(f"no case {case_id!r}")
    duplicate, kept = cases[duplicate_id], cases[kept_id]
    if duplicate.status == Case.Status.MERGED:
        raise workflow.WorkflowError(f"{duplicate_id} was already merged into {duplicate.merged_into_id}")
    if kept.status != Case.Status.PUBLISHED:
        raise workflow.WorkflowError(f"the kept case must be published; {kept_id} is {kept.status}")
    duplicate.status = Case.Status.MERGED
    duplicate.merged_into = kept
    duplicate.save(update_fields=["status", "merged_into", "modified"])
    # Ids merged into the duplicate earlier now redirect to the kept case: a change of theirs
    # too, in the change feed and in their history.
    earlier = sorted(Case.objects.filter(merged_into=duplicate).values_list("id", flat=True))
    Case.objects.filter(id__in=earlier).update(merged_into=kept, modified=timezone.now())
    kept.save(update_fields=["modified"])  # the kept case changed too: mirrors refetch it
    refresh_derived([duplicate_id, kept_id])
    note = unix_newlines(reason.strip()) or "duplicate"
    history.record(duplicate_id, user=user, reason=f"merged into {kept_id}: {note}")
    history.record(kept_id, user=user, reason=f"{duplicate_id} merged into this case: {note}")
    history.record_many(
        earlier, user=user, reason=f"now redirects to {kept_id}: {duplicate_id} merged into it"
    )
    return kept
