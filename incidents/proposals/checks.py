"""What a reviewer is warned of before accepting a new case's proposal: said on the
proposal's page (the accept form) and again as the acceptance's warnings, never a refusal
(`services.accept` refuses only what a published case cannot lack)."""

from __future__ import annotations

import re

from incidents.models import Case

from .models import Proposal

UNKNOWN_ROOT_CAUSE = "Root cause unknown"
# A root-cause description that says the cause is not known states none: "The source does
# not say", "unclear", "under investigation".
_NO_CAUSE = re.compile(
    r"\b(unknown|not known|unclear|undetermined|under investigation|no root cause"
    r"|not (?:yet )?(?:determined|identified|established|stated|public|disclosed)"
    r"|(?:does|did) not say)\b",
    re.IGNORECASE,
)
QUOTED_CHARS = 120  # of the description, quoted in the warning


def states_a_cause(description: str | None) -> bool:
    """Whether a root-cause description states a cause: not blank, and not saying the cause
    is unknown (`_NO_CAUSE`)."""
    text = (description or "").strip()
    return bool(text) and _NO_CAUSE.search(text) is None


def root_cause_check(case: Case) -> str | None:
    """The warning for a case whose root-cause category is "Root cause unknown" while its
    description states a cause (the walkthrough published IL-0638 so: a definite cause under
    "Root cause unknown"), else None. Reads `root_cause_category` (select it with the case)."""
    category = case.root_cause_category
    if category is None or category.name != UNKNOWN_ROOT_CAUSE:
        return None
    if not states_a_cause(case.root_cause_description):
        return None
    text = " ".join((case.root_cause_description or "").split())
    quoted = text if len(text) <= QUOTED_CHARS else text[: QUOTED_CHARS - 1].rstrip() + "…"
    return (
        f"{case.pk}'s root cause is “{UNKNOWN_ROOT_CAUSE}” but its description states one (“{quoted}”): "
        "choose the category it names in the case before accepting, or accept as it is if the "
        "cause is only suspected."
    )


def accept_checks(proposal: Proposal) -> list[str]:
    """The warnings of accepting `proposal` now (`root_cause_check` of its draft); none for a
    correction or a proposal no longer waiting. One query."""
    if proposal.kind != Proposal.Kind.NEW or not proposal.case_id:
        return []
    if proposal.status not in (Proposal.Status.RECEIVED, Proposal.Status.IN_REVIEW):
        return []
    draft = Case.objects.select_related("root_cause_category").filter(pk=proposal.case_id).first()
    found = root_cause_check(draft) if draft is not None else None
    return [found] if found else []
