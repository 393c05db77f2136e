"""A proposal may name an organization the vocabulary lacks: the walkthrough's visitor could
not send a company's public postmortem ("No organization called “Example Labs” in the
vocabulary ... an editor adds new organizations") until an editor had added the company.
Now the name is kept on the proposal and shown to the reviewer, who maps it to an existing
organization or adds one; accepting names that organization in the case, and is refused
while the name is mapped to nothing (never published with the name dropped)."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.history import case_history
from incidents.models import Case, Facet, Term
from incidents.proposals import services
from incidents.proposals.models import Proposal
from tests.factories import NEW_PROPOSAL as NEW

from .conftest import form_data, write_symptoms

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

CHANGE = "admin:incidents_proposal_change"


def propose(client, organization: str) -> Proposal:
    page = client.get(reverse("incidents:propose"))
    data = form_data(page.content.decode(), None)
    topic = Term.objects.get(facet="topic", slug="checkpoint-storage")
    data.update({k: [v] for k, v in {**NEW, "topic": str(topic.pk), "organization": organization}.items()})
    response = client.post(reverse("incidents:propose"), data)
    assert response.status_code == 302
    return Proposal.objects.get()


def test_the_form_takes_a_name_the_vocabulary_lacks_and_keeps_it(client):
    proposal = propose(client, "Example Labs")
    assert (proposal.organization_named, proposal.organization_term) == ("Example Labs", None)
    assert proposal.case.organization == services.UNNAMED_ORGANIZATION == "Community report"


def test_a_name_the_vocabulary_has_is_the_case_s_organization_at_once(client):
    proposal = propose(client, "facebook")  # a synonym of Meta, in another letter case
    assert proposal.organization_named == ""
    assert (proposal.case.organization, proposal.case.organization_term.name) == ("facebook", "Meta")


def test_the_api_takes_it_too(client):
    response = APIClient().post("/api/proposals/", {**NEW, "organization": "Example Labs"}, format="json")
    assert response.status_code == 201
    proposal = Proposal.objects.get()
    assert (proposal.organization_named, proposal.case.organization) == ("Example Labs", "Community report")


def test_the_reviewer_reads_the_name_with_the_closest_organizations(client, reviewer):
    proposal = propose(client, "Anthropik")
    client.force_login(reviewer)
    page = client.get(reverse(CHANGE, args=[proposal.pk])).content.decode()
    assert (
        "Anthropik: not in the vocabulary. Closest: Anthropic. Choose the organization it is below "
        "(or add it with +) and save before accepting."
    ) in page
    assert '<label for="id_organization_term">Organization it is:</label>' in page


def test_accepting_is_refused_while_the_name_is_mapped_to_nothing(client, reviewer):
    proposal = propose(client, "Example Labs")
    write_symptoms(client, reviewer, proposal.case_id)
    with pytest.raises(services.ReviewError) as refused:
        services.accept(proposal, user=reviewer)
    assert str(refused.value) == (
        "the proposer named the organization “Example Labs”, which the vocabulary lacks: choose the "
        "organization it is under “Organization it is” (or add it there with +), save, then accept"
    )
    assert Case.objects.get(id=proposal.case_id).status == "draft"
    assert Proposal.objects.get().status == "received"


def test_the_organization_the_reviewer_chooses_is_the_case_s_on_accepting(client, reviewer):
    proposal = propose(client, "Example Labs")
    write_symptoms(client, reviewer, proposal.case_id)
    meta = Term.objects.get(facet=Facet.ORGANIZATION, name="Meta")
    data = form_data(client.get(reverse(CHANGE, args=[proposal.pk])).content.decode(), "proposal_form")
    data["organization_term"] = [str(meta.pk)]
    assert client.post(reverse(CHANGE, args=[proposal.pk]), data).status_code == 302
    changelist = reverse("admin:incidents_proposal_changelist")
    response = client.post(changelist, {"action": "accept", "_selected_action": [proposal.pk]})
    assert [str(m) for m in get_messages(response.wsgi_request)][-1] == (
        f"{proposal.title}: accepted; {proposal.case_id} is published."
    )
    case = Case.objects.get(id=proposal.case_id)
    assert (case.status, case.organization) == ("published", "Meta")
    assert [(r.user, r.reason, r.status) for r in case_history(case.id)][:3] == [
        ("rita", "proposal accepted", "published"),
        ("rita", "status: in_review", "in_review"),
        ("rita", "organization as proposed: “Example Labs”, named Meta", "draft"),
    ]
    assert Proposal.objects.get().organization_named == "Example Labs"  # kept


def test_an_organization_added_since_is_found_by_the_name_as_proposed(client, reviewer):
    proposal = propose(client, "Example Labs")
    write_symptoms(client, reviewer, proposal.case_id)
    Term.objects.create(facet=Facet.ORGANIZATION, slug="example-labs", name="Example Labs")
    services.accept(proposal, user=reviewer)
    case = Case.objects.get(id=proposal.case_id)
    assert (case.status, case.organization) == ("published", "Example Labs")


def test_an_unknown_topic_is_refused_as_the_list_filter_refuses_it(client):
    response = APIClient().post("/api/proposals/", {**NEW, "topic": "nope"}, format="json")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    [as_filter] = client.get("/api/cases/", {"topic": "nope"}).json()["errors"]
    assert error == as_filter
    assert error["detail"] == "unknown topic 'nope'"
    assert "checkpoint-storage" in error["suggestions"]
    misspelt = APIClient().post("/api/proposals/", {**NEW, "root_cause": "hardwre-fault"}, format="json")
    assert misspelt.json()["errors"] == [
        {
            "parameter": "root_cause",
            "detail": "unknown root cause 'hardwre-fault'",
            "value": "hardwre-fault",
            "suggestions": client.get("/api/cases/", {"root_cause": "hardwre-fault"}).json()["errors"][0][
                "suggestions"
            ],
        }
    ]
    assert not Proposal.objects.exists()


def test_a_topic_is_named_as_the_list_filter_names_it(client):
    response = APIClient().post(
        "/api/proposals/", {**NEW, "topic": "Checkpoint and storage failures"}, format="json"
    )
    assert response.status_code == 201
    draft = Case.objects.with_document().get(id=Proposal.objects.get().case_id)
    assert [topic.slug for topic in draft.topics] == ["checkpoint-storage"]
