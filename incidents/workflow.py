"""Who may do what to a case: roles as Django groups and the status transitions.

Editors create and edit cases and move drafts to review (and back); reviewers do that too
and also publish, retract and merge. Superusers hold both roles.
"""

from __future__ import annotations

from typing import Any

from django.utils.text import capfirst

from .models import Case

EDITOR = "editor"
REVIEWER = "reviewer"
ROLES = (EDITOR, REVIEWER)

S = Case.Status
# (from, to) -> the role that may make the transition.
TRANSITIONS: dict[tuple[str, str], str] = {
    (S.DRAFT, S.IN_REVIEW): EDITOR,
    (S.IN_REVIEW, S.DRAFT): EDITOR,
    (S.IN_REVIEW, S.PUBLISHED): REVIEWER,
    (S.PUBLISHED, S.RETRACTED): REVIEWER,
}
# Statuses in which readers see a case (a retracted one still resolves by id): what it
# shows must be written by then.
SHOWN = (S.PUBLISHED, S.RETRACTED)
# Statuses a case may be created with, by role.
CREATE_STATUSES = {EDITOR: (S.DRAFT, S.IN_REVIEW), REVIEWER: (S.DRAFT, S.IN_REVIEW, S.PUBLISHED)}


class WorkflowError(Exception):
    """A transition the workflow does not have (409 in the API)."""


class NotAllowed(Exception):
    """The user lacks the role for this (403 in the API)."""


def roles_of(user: Any) -> set[str]:
    """The roles of `user` (a Django user, or None / anonymous: no roles).

    Reads the user's groups once per user object (cached on it).
    """
    if user is None or not user.is_authenticated or not user.is_active:
        return set()
    if user.is_superuser:
        return set(ROLES)
    cached = getattr(user, "_incident_roles", None)
    if cached is None:
        cached = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if REVIEWER in cached:
            cached.add(EDITOR)  # a reviewer edits too
        user._incident_roles = cached
    return cached


def is_editor(user: Any) -> bool:
    return EDITOR in roles_of(user)


def is_reviewer(user: Any) -> bool:
    return REVIEWER in roles_of(user)


def check_transition(user: Any, current: str, target: str) -> None:
    """Raise WorkflowError when `current -> target` is not a transition, NotAllowed when
    the user lacks the role for it."""
    role = TRANSITIONS.get((current, target))
    if role is None:
        allowed = sorted(to for (frm, to) in TRANSITIONS if frm == current)
        raise WorkflowError(
            f"a case that is {current} cannot become {target}"
            + (f"; it can become {', '.join(allowed)}" if allowed else "; it has no further status")
        )
    if role not in roles_of(user):
        raise NotAllowed(f"only a {role} may move a case from {current} to {target}")


def check_create_status(user: Any, status: str) -> None:
    """Raise NotAllowed when the user may not create a case with `status`."""
    roles = roles_of(user)
    allowed = {s for role in roles for s in CREATE_STATUSES.get(role, ())}
    if status not in allowed:
        if not roles:
            raise NotAllowed("creating cases needs the editor role")
        raise NotAllowed(f"a new case may have status {', '.join(sorted(allowed))}, not {status}")


def lacks_symptoms(status: str, symptoms_description: str) -> bool:
    """Whether a case of `status` shows readers an empty Symptoms section: a proposal's draft
    has no symptoms description until a reviewer writes what operators saw, and the case is
    published only with one (`check_publishable`; import and every save refuse a published
    or retracted document without it, `validation`)."""
    return status in SHOWN and not symptoms_description.strip()


def symptoms_field() -> str:
    """The symptoms description as the admin labels it: “Symptoms description”."""
    return f"“{capfirst(Case._meta.get_field('symptoms_description').verbose_name)}”"


def check_publishable(case: Case) -> None:
    """Raise WorkflowError when `case` may not be published as it stands: its symptoms
    description is empty (`lacks_symptoms`), naming the field to write."""
    if lacks_symptoms(S.PUBLISHED, case.symptoms_description):
        raise WorkflowError(
            f"its {symptoms_field()} (symptoms.description) is empty: a case is published with "
            "what operators saw; write it, save the case, then publish"
        )
