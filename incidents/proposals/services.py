"""Receiving and reviewing proposals. A new-case proposal becomes a draft case at once
(validated by import's own validation through `services.save_case_document`); accepting it
publishes that draft through the workflow, so search, feeds and history follow."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.text import capfirst

from incidents import duplicates, services
from incidents.documents import case_document
from incidents.history import PROPOSAL, PROPOSAL_ACCEPTED, User
from incidents.line_endings import unix_newlines
from incidents.models import Case, Facet, Term
from incidents.workflow import is_editor, is_reviewer, lacks_symptoms, symptoms_field

from .checks import UNKNOWN_ROOT_CAUSE
from .models import Proposal
from .organizations import organization_for

# What a draft names while its proposal's organization is one the vocabulary lacks: a case
# names a vocabulary organization (import's validation), and this is the one term that
# claims no company. Accepting replaces it with the organization the reviewer maps the
# proposed name to (`accept`).
UNNAMED_ORGANIZATION = "Community report"


@dataclass(frozen=True)
class NewCase:
    """What a reader tells about a new case (checked by `forms.ProposalForm`)."""

    title: str
    organization: str  # as the proposer wrote it
    published: datetime.date
    summary: str
    topic: Term
    root_cause: Term | None
    source_urls: list[str]
    contact: str = ""
    # The vocabulary's organization `organization` spells, None for a name it lacks.
    organization_term: Term | None = None


@transaction.atomic
def propose_case(data: NewCase) -> Proposal:
    """Make a draft case from a new-case proposal and queue it. An organization the
    vocabulary lacks is kept on the proposal (`organization_named`) for the reviewer to map,
    the draft naming `UNNAMED_ORGANIZATION` until then. Raises CaseImportError when the draft
    fails import's validation (nothing is written then)."""
    root_cause = data.root_cause or Term.objects.get(facet=Facet.ROOT_CAUSE, name=UNKNOWN_ROOT_CAUSE)
    named = "" if data.organization_term is not None else data.organization.strip()
    document: dict[str, Any] = {
        "id": services.next_case_id(),
        "title": data.title,
        "organization": data.organization if data.organization_term else UNNAMED_ORGANIZATION,
        "published": data.published.isoformat(),
        "status": Case.Status.DRAFT,
        "topics": [data.topic.slug],
        "summary": data.summary,
        "symptoms": {"description": "", "tags": []},
        "root_cause": {"category": root_cause.name},
        "sources": [{"url": url} for url in data.source_urls],
    }
    found = duplicates.find_lookalikes(urls=data.source_urls, text=f"{data.title}\n{data.summary}")
    services.save_case_document(document, reason=PROPOSAL, where="proposal")
    return Proposal.objects.create(
        kind=Proposal.Kind.NEW,
        case_id=document["id"],
        title=data.title,
        text=data.summary,
        source_urls=data.source_urls,
        contact=data.contact,
        organization_named=named,
        lookalikes=[{"id": d.case_id, "reason": d.reason} for d in found],
    )


CORRECTION_TITLE_CHARS = 80  # of the text's first line, in an untitled correction's title


def correction_title(case: Case, text: str) -> str:
    """The title of a correction sent without one: the case and the start of what is wrong
    (`Correction to IL-0428: The postmortem says 64 nodes, not 32.`), cut at a word."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(first) > CORRECTION_TITLE_CHARS:
        first = first[:CORRECTION_TITLE_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    return f"Correction to {case.pk}: {first}" if first else f"Correction to {case.pk}"


def propose_correction(
    *, case: Case, title: str, text: str, source_urls: list[str], contact: str = ""
) -> Proposal:
    """Queue a correction of a published case (an editor applies it in the admin). `title`
    is the proposer's own (what is wrong), `correction_title` when blank; `case` says which
    case it corrects; `source_urls` may be empty."""
    return Proposal.objects.create(
        kind=Proposal.Kind.CORRECTION,
        case=case,
        title=title.strip() or correction_title(case, text),
        text=text,
        source_urls=source_urls,
        contact=contact,
    )


def correction_note(proposal: Proposal) -> str:
    """The history reason of an accepted correction: `correction accepted: proposal 12`."""
    return f"correction accepted: proposal {proposal.pk}"


class ReviewError(Exception):
    pass


@transaction.atomic
def start_review(proposal: Proposal, *, user: User) -> Proposal:
    """received -> in review; a new case's draft moves to review with it (editors)."""
    if proposal.status != Proposal.Status.RECEIVED:
        raise ReviewError(f"the proposal is {proposal.status}, not received")
    if not is_editor(user):
        raise ReviewError("reviewing proposals needs the editor role")
    if proposal.kind == Proposal.Kind.NEW and proposal.case_id:
        if Case.objects.filter(pk=proposal.case_id, status=Case.Status.DRAFT).exists():
            services.change_status(proposal.case_id, Case.Status.IN_REVIEW, user=user)
    proposal.status = Proposal.Status.IN_REVIEW
    proposal.save(update_fields=["status", "updated"])
    return proposal


def lookalikes(proposal: Proposal) -> list[duplicates.Duplicate]:
    """The cases a new case's proposal looks like now: `duplicates.find_duplicates` of its
    draft, what saving that case in the admin warns of (its own id left out); none for a
    correction. Told to the reviewer who accepts it, never a refusal: a look-alike may be
    a second account of another incident."""
    if proposal.kind != Proposal.Kind.NEW or not proposal.case_id:
        return []
    return duplicates.find_duplicates(
        dict(case_document(Case.objects.with_document().get(pk=proposal.case_id)))
    )


def _check_acceptable(proposal: Proposal, user: User) -> None:
    if proposal.status not in (Proposal.Status.RECEIVED, Proposal.Status.IN_REVIEW):
        raise ReviewError(f"the proposal is already {proposal.status}")
    if not is_reviewer(user):
        raise ReviewError("accepting proposals needs the reviewer role")


def acceptance_problems(proposal: Proposal) -> list[str]:
    """Every problem that refuses accepting a new case's proposal as it stands, in the words
    `accept` refuses with (lower case, no final stop), in the order to fix them; [] when
    none, for a correction, or for a proposal no longer waiting (`accept` says why then).
    The proposal's page lists them under "Checks before accepting" before the click, so a
    reviewer learns them at once, not one refusal at a time:

    - its draft has no symptoms description (what operators saw, which the proposal does
      not say: the reviewer writes it in the admin first);
    - the proposer named an organization the vocabulary lacks and nobody has mapped it
      (`organization_for` finds none and the draft still names `UNNAMED_ORGANIZATION`).

    Queries: one for the draft, at most one for the organization."""
    if proposal.kind != Proposal.Kind.NEW or not proposal.case_id:
        return []
    if proposal.status not in (Proposal.Status.RECEIVED, Proposal.Status.IN_REVIEW):
        return []
    draft = (
        Case.objects.only("id", "organization", "symptoms_description").filter(pk=proposal.case_id).first()
    )
    if draft is None:
        return []
    problems = []
    if lacks_symptoms(Case.Status.PUBLISHED, draft.symptoms_description):
        problems.append(
            f"its draft {draft.pk} has no {symptoms_field()}: open {draft.pk} in the admin, write "
            "what operators saw in that field and save, then accept"
        )
    if proposal.organization_named and draft.organization == UNNAMED_ORGANIZATION:
        if organization_for(proposal) is None:
            field = capfirst(Proposal._meta.get_field("organization_term").verbose_name)
            problems.append(
                f"the proposer named the organization “{proposal.organization_named}”, which the "
                f"vocabulary lacks: choose the organization it is under “{field}” (or add it there "
                "with +), save, then accept"
            )
    return problems


def refusal(problems: list[str]) -> str:
    """`acceptance_problems` as one refusal: the problem itself when there is one, else each
    numbered (`2 problems block accepting: (1) its draft ...; (2) the proposer named ...`)."""
    if len(problems) == 1:
        return problems[0]
    listed = "; ".join(f"({n}) {problem}" for n, problem in enumerate(problems, start=1))
    return f"{len(problems)} problems block accepting: {listed}"


@transaction.atomic
def accept(proposal: Proposal, *, user: User) -> Proposal:
    """Accept a new case's proposal (reviewers): its draft is published (through review
    first). Raises ReviewError naming every `acceptance_problems` at once (`refusal`) while
    any stands: no symptoms description, an organization mapped to nothing. A correction is
    refused with where to accept it (`accept_correction`): an acceptance apart from the
    edit would be a history entry that changes nothing."""
    _check_acceptable(proposal, user)
    if proposal.kind == Proposal.Kind.CORRECTION:
        raise ReviewError(
            f"a correction is accepted with the edit that makes it: open {proposal.case_id} in the "
            "admin, make the correction and choose this proposal under “Accepts correction” as you save"
        )
    problems = acceptance_problems(proposal)
    if problems:
        raise ReviewError(refusal(problems))
    if proposal.case_id:
        draft = Case.objects.get(pk=proposal.case_id)
        _name_the_organization(proposal, draft, user)
        if draft.status == Case.Status.DRAFT:
            services.change_status(draft.pk, Case.Status.IN_REVIEW, user=user)
        services.change_status(draft.pk, Case.Status.PUBLISHED, user=user, reason=PROPOSAL_ACCEPTED)
    proposal.status = Proposal.Status.ACCEPTED
    proposal.save(update_fields=["status", "updated"])
    return proposal


def _name_the_organization(proposal: Proposal, draft: Case, user: User) -> None:
    """Before publishing: a draft whose proposal named an organization the vocabulary lacked
    names the organization it is (`organization_for`), recorded in its history with the name
    as proposed. A reviewer who set the draft's organization in the admin has mapped it
    already. A name mapped to nothing is refused before this (`acceptance_problems`): never
    published under `UNNAMED_ORGANIZATION` with the proposer's name dropped."""
    if not proposal.organization_named:
        return
    term = organization_for(proposal)
    if term is None or draft.organization == term.name:
        return
    document = dict(case_document(Case.objects.with_document().get(pk=draft.pk)))
    document["organization"] = term.name
    services.save_case_document(
        document,
        user=user,
        reason=f"organization as proposed: “{proposal.organization_named}”, named {term.name}",
    )


@transaction.atomic
def accept_correction(proposal: Proposal, *, user: User) -> Proposal:
    """Mark a correction accepted (reviewers) by the save that made it: the caller wrote that
    save's history entry with `correction_note` as its reason. Raises ReviewError."""
    _check_acceptable(proposal, user)
    if proposal.kind != Proposal.Kind.CORRECTION:
        raise ReviewError("only a correction is accepted with an edit of its case")
    proposal.status = Proposal.Status.ACCEPTED
    proposal.save(update_fields=["status", "updated"])
    return proposal


@transaction.atomic
def decline(proposal: Proposal, *, user: User, reason: str) -> Proposal:
    """Decline with a reason the proposer sees (editors); a new case's draft stays a draft."""
    if not is_editor(user):
        raise ReviewError("declining proposals needs the editor role")
    if not reason.strip():
        # Named as the admin labels it: the reason is read from that field of the proposal.
        field = capfirst(Proposal._meta.get_field("decline_reason").verbose_name)
        raise ReviewError(
            f"say why the proposal is declined: open it, write the reason in its “{field}” field "
            "and press “Decline”"
        )
    if proposal.status in (Proposal.Status.ACCEPTED, Proposal.Status.DECLINED):
        raise ReviewError(f"the proposal is already {proposal.status}")
    proposal.status = Proposal.Status.DECLINED
    proposal.decline_reason = unix_newlines(reason.strip())
    proposal.save(update_fields=["status", "decline_reason", "updated"])
    return proposal
