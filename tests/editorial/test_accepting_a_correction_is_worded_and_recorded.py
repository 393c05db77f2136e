"""Accepting a proposal says what it did in the words of its kind: a new case is published, a
correction (which an editor made in the case) is recorded in that case's history, naming
the reviewer and the proposal. The proposer's page and the admin say which."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from incidents.history import case_history
from incidents.models import Case
from incidents.proposals.models import Proposal

from .test_proposals import form_post

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def proposal_rate(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api": None, "api-heavy": None, "proposals": "100/minute"},
    }


def accept_in_the_admin(client, reviewer, proposal: Proposal) -> list[str]:
    client.force_login(reviewer)
    url = reverse("admin:incidents_proposal_changelist")
    response = client.post(url, {"action": "accept", "_selected_action": [proposal.pk]})
    assert response.status_code == 302
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_an_accepted_correction_is_worded_as_one_and_in_the_case_history(client, reviewer):
    response = form_post(
        client, kind="correction", case_id="IL-0428", title="The time to resolve is wrong", text="3 h, not 2."
    )
    assert response.status_code == 302
    proposal = Proposal.objects.get()
    before = Case.objects.get(id="IL-0428").modified
    messages = accept_in_the_admin(client, reviewer, proposal)
    assert messages == [
        "The time to resolve is wrong: accepted; the correction is recorded in the history of IL-0428."
    ]
    client.logout()
    page = client.get(proposal.get_absolute_url()).content.decode()
    assert "Accepted, thank you: your correction is in" in page
    assert '<a href="/cases/IL-0428">IL-0428</a>' in page
    assert "It is now" not in page

    [latest, *earlier] = case_history("IL-0428")
    assert (latest.user, latest.reason, latest.changes) == (
        "rita",
        f"correction accepted: proposal {proposal.pk}",
        [],
    )
    case = Case.objects.get(id="IL-0428")
    assert latest.when == case.modified > before  # one write, one time: the change feed lists it
    assert len(earlier) == 1 and case.status == "published"


def test_an_accepted_new_case_says_it_is_published(client, reviewer):
    assert form_post(client).status_code == 302
    proposal = Proposal.objects.get()
    messages = accept_in_the_admin(client, reviewer, proposal)
    assert messages == [f"{proposal.title}: accepted; {proposal.case_id} is published."]
    page = client.get(proposal.get_absolute_url()).content.decode()
    assert f'It is now <a href="/cases/{proposal.case_id}">{proposal.case_id}</a>.' in page


def test_the_accept_action_names_both_kinds(client, reviewer):
    form_post(client, kind="correction", case_id="IL-0428", title="The time to resolve is wrong")
    client.force_login(reviewer)
    page = client.get(reverse("admin:incidents_proposal_changelist")).content.decode()
    assert "publishes a new case" not in page
    assert "Accept (reviewers): publish a new case, or record a correction in its case&#x27;s history" in page
