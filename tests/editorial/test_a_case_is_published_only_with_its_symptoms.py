"""A case is published only with what operators saw.

A new case's proposal makes a draft whose text is its summary alone, its symptoms
description empty; accepting it asked for none, so a reviewer could publish a case whose
Symptoms section was empty (a new user's walkthrough). Accepting, the admin's Publish, the
API's status change and import (or any save) of a published or retracted document now
refuse it, naming the field; a draft or a case in review may still leave it empty, as the
schema allows.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import Case
from incidents.proposals import services as proposal_services
from incidents.proposals.models import Proposal
from tests.factories import synthetic_case

from .conftest import SYMPTOMS, api, write_symptoms
from .test_accepting_a_correction_is_worded_and_recorded import accept_in_the_list
from .test_proposals import form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

NO_SYMPTOMS = (
    "its “Symptoms description” (symptoms.description) is empty: a case is published with what "
    "operators saw; write it, save the case, then publish"
)


@pytest.fixture
def proposal(client, editor) -> Proposal:
    """A new case's proposal in review: its draft in review too, with no symptoms yet."""
    assert form_post(client).status_code == 302
    proposal = proposal_services.start_review(Proposal.objects.get(), user=editor)
    assert Case.objects.get(pk=proposal.case_id).symptoms_description == ""
    return proposal


def test_accepting_a_proposal_whose_draft_has_no_symptoms_is_refused_naming_the_field(
    client, reviewer, proposal
):
    case_id = proposal.case_id
    assert accept_in_the_list(client, reviewer, proposal) == [
        f"{proposal.title}: its draft {case_id} has no “Symptoms description”: open {case_id} in "
        "the admin, write what operators saw in that field and save, then accept"
    ]
    proposal.refresh_from_db()
    assert (proposal.status, Case.objects.get(pk=case_id).status) == ("in_review", "in_review")
    assert client.get(reverse("incidents:case-detail", args=[case_id])).status_code == 404


def test_once_the_reviewer_writes_the_symptoms_accepting_publishes_them(client, reviewer, proposal):
    write_symptoms(client, reviewer, proposal.case_id)
    assert accept_in_the_list(client, reviewer, proposal) == [
        f"{proposal.title}: accepted; {proposal.case_id} is published."
    ]
    page = client.get(reverse("incidents:case-detail", args=[proposal.case_id])).content.decode()
    assert SYMPTOMS in page


def test_the_admin_s_publish_refuses_a_case_without_symptoms(client, reviewer, proposal):
    client.force_login(reviewer)
    response = client.post(
        reverse("admin:incidents_case_changelist"),
        {"action": "publish", "_selected_action": [proposal.case_id]},
        follow=True,
    )
    said = [str(message) for message in response.context["messages"]]
    assert said == [f"{proposal.case_id}: {NO_SYMPTOMS}"]
    assert Case.objects.get(pk=proposal.case_id).status == "in_review"


def test_the_api_s_status_change_is_a_409_naming_the_field(reviewer, proposal):
    # `*`: a case in review has no public ETag to send.
    response = api(reviewer).post(
        reverse("api:case-status", args=[proposal.case_id]),
        {"status": "published"},
        format="json",
        HTTP_IF_MATCH="*",
    )
    assert (response.status_code, response.json()["detail"]) == (409, NO_SYMPTOMS)
    assert Case.objects.get(pk=proposal.case_id).status == "in_review"


@pytest.mark.parametrize("status", ["published", "retracted"])
def test_import_refuses_a_case_readers_see_without_symptoms(status):
    document = synthetic_case(1, status=status)
    document["symptoms"] = {**document["symptoms"], "description": " \n"}
    [problem] = services.validate_document(document, where="case.json")
    assert (problem.file, problem.path, problem.message) == (
        "case.json",
        "$.symptoms.description",
        f"empty in a {status} case: write what operators saw (“Symptoms description” in the admin); "
        "only a draft or a case in review may leave it empty",
    )


@pytest.mark.parametrize("status", ["draft", "in_review"])
def test_a_draft_or_a_case_in_review_may_leave_them_empty(status):
    document = synthetic_case(1, status=status)
    document["symptoms"] = {**document["symptoms"], "description": ""}
    assert services.validate_document(document) == []
