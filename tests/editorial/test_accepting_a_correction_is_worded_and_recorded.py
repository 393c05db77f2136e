"""A correction is accepted by the save that makes it: the reviewer chooses the proposal on
the case's admin page as they save the edit, and that one history entry names the proposal
beside the fields it changed (an acceptance apart from the edit was an entry changing
nothing). A save that changes nothing accepts nothing. Accepting a new case publishes it.
The proposer's page and the admin say which."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from incidents.history import case_history
from incidents.models import Case
from incidents.proposals.models import Proposal

from .conftest import form_data, write_symptoms
from .test_proposals import form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

CHANGE = "admin:incidents_case_change"


@pytest.fixture
def correction(client) -> Proposal:
    response = form_post(
        client, kind="correction", case_id="IL-0428", title="The time to resolve is wrong", text="3 h, not 2."
    )
    assert response.status_code == 302
    return Proposal.objects.get()


def accept_in_the_list(client, reviewer, proposal: Proposal) -> list[str]:
    client.force_login(reviewer)
    url = reverse("admin:incidents_proposal_changelist")
    response = client.post(url, {"action": "accept", "_selected_action": [proposal.pk]})
    assert response.status_code == 302
    return [str(m) for m in get_messages(response.wsgi_request)]


def save_case(client, user, case_id: str, **values: str):
    client.force_login(user)
    data = form_data(client.get(reverse(CHANGE, args=[case_id])).content.decode(), "case_form")
    data.update({name: [value] for name, value in values.items()})
    return client.post(reverse(CHANGE, args=[case_id]), data)


def test_the_save_that_makes_the_correction_accepts_it_in_one_history_entry(client, reviewer, correction):
    before = Case.objects.get(id="IL-0428").modified
    response = save_case(
        client,
        reviewer,
        "IL-0428",
        time_to_resolve="PT3H",
        accepts_correction=str(correction.pk),
        change_reason="as the postmortem says",
    )
    assert response.status_code == 302
    [(level, message)] = [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)][:1]
    assert (level, message) == (
        "success",
        "The time to resolve is wrong: accepted; this change is its entry in the history of IL-0428.",
    )
    correction.refresh_from_db()
    assert correction.status == "accepted"

    [latest, *earlier] = case_history("IL-0428")
    assert (latest.user, latest.reason) == (
        "rita",
        f"correction accepted: proposal {correction.pk}: as the postmortem says",
    )
    assert [c.field for c in latest.changes] == ["facts.time_to_resolve"]
    case = Case.objects.get(id="IL-0428")
    assert latest.when == case.modified > before
    assert len(earlier) == 1 and case.status == "published"

    client.logout()
    page = client.get(correction.get_absolute_url()).content.decode()
    assert "Accepted, thank you: your correction is in" in page
    assert '<a href="/cases/IL-0428">IL-0428</a>' in page


def test_a_save_that_changes_nothing_accepts_nothing(client, reviewer, correction):
    response = save_case(client, reviewer, "IL-0428", accepts_correction=str(correction.pk))
    assert response.status_code == 302
    assert [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)] == [
        (
            "warning",
            "Nothing changed, so “The time to resolve is wrong” was not accepted: make its "
            "correction in the case, then save with it chosen again.",
        )
    ]
    correction.refresh_from_db()
    assert correction.status == "received"
    assert len(case_history("IL-0428")) == 1


def test_accepting_a_correction_from_the_list_says_where_to_accept_it(client, reviewer, correction):
    messages = accept_in_the_list(client, reviewer, correction)
    assert messages == [
        "The time to resolve is wrong: a correction is accepted with the edit that makes it: open "
        "IL-0428 in the admin, make the correction and choose this proposal under “Accepts "
        "correction” as you save"
    ]
    correction.refresh_from_db()
    assert correction.status == "received"
    assert len(case_history("IL-0428")) == 1


def test_only_reviewers_see_the_choice_and_only_open_corrections_of_that_case(
    client, editor, reviewer, correction
):
    client.force_login(editor)
    assert 'name="accepts_correction"' not in client.get(reverse(CHANGE, args=["IL-0428"])).content.decode()
    client.force_login(reviewer)
    page = client.get(reverse(CHANGE, args=["IL-0428"])).content.decode()
    label = f"The time to resolve is wrong (proposal {correction.pk}, received)"
    assert f'<option value="{correction.pk}">{label}</option>' in page
    assert 'name="accepts_correction"' not in client.get(reverse(CHANGE, args=["IL-0429"])).content.decode()


def test_an_editor_cannot_accept_a_correction_by_posting_it(client, editor, correction):
    response = save_case(
        client, editor, "IL-0428", time_to_resolve="PT3H", accepts_correction=str(correction.pk)
    )
    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["accepts_correction"]
    correction.refresh_from_db()
    assert correction.status == "received"


def test_an_accepted_new_case_says_it_is_published(client, reviewer):
    assert form_post(client).status_code == 302
    proposal = Proposal.objects.get()
    write_symptoms(client, reviewer, proposal.case_id)
    messages = accept_in_the_list(client, reviewer, proposal)
    assert messages == [f"{proposal.title}: accepted; {proposal.case_id} is published."]
    page = client.get(proposal.get_absolute_url()).content.decode()
    assert f'It is now <a href="/cases/{proposal.case_id}">{proposal.case_id}</a>.' in page


def test_the_accept_action_says_where_corrections_are_accepted(client, reviewer, correction):
    client.force_login(reviewer)
    page = client.get(reverse("admin:incidents_proposal_changelist")).content.decode()
    assert (
        "Accept (reviewers): publish a new case (a correction is accepted by saving it in its case)" in page
    )
