"""A proposal is declined or accepted from its own admin page, in one step, and the page
warns before accepting a case whose root cause says "unknown" over a stated cause.

The walkthrough needed four steps to decline (the list action refused, open the proposal,
write the reason, save, run the action again), and published IL-0638 as "Root cause
unknown" with a definite cause written under it, unwarned."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from incidents.models import Case, Term
from incidents.proposals import services
from incidents.proposals.checks import states_a_cause
from incidents.proposals.models import Proposal
from tests.factories import NEW_PROPOSAL as NEW

from .conftest import CASE_CHANGE, case_change_form, form_data, write_symptoms

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

CHANGE = "admin:incidents_proposal_change"
CAUSE = "The Lustre OST behind the checkpoint directory filled up, so every write blocked."


@pytest.fixture
def proposal(client) -> Proposal:
    page = client.get(reverse("incidents:propose"))
    data = form_data(page.content.decode(), None)
    topic = Term.objects.get(facet="topic", slug="checkpoint-storage")
    data.update({k: [v] for k, v in {**NEW, "topic": str(topic.pk)}.items()})
    assert client.post(reverse("incidents:propose"), data).status_code == 302
    return Proposal.objects.get()


def press(client, proposal: Proposal, button: str, **fields: str):
    """Post the proposal's page as shown, with `fields` written, by its `button`."""
    url = reverse(CHANGE, args=[proposal.pk])
    data = form_data(client.get(url).content.decode(), "proposal_form")
    data.update({name: [value] for name, value in fields.items()})
    data[button] = ["1"]
    response = client.post(url, data)
    assert (response.status_code, response["Location"]) == (302, url)
    return [str(m) for m in get_messages(response.wsgi_request)]


def checks_shown(client, proposal: Proposal) -> str:
    page = client.get(reverse(CHANGE, args=[proposal.pk])).content.decode()
    [shown] = re.findall(
        r'<label>Checks before accepting:</label>\s*<div class="readonly">(.*?)</div>', page, re.S
    )
    return unescape(shown)


def write_root_cause(client, reviewer, case_id: str, description: str) -> None:
    client.force_login(reviewer)
    data = case_change_form(client, case_id)
    data["root_cause_description"] = [description]
    response = client.post(reverse(CASE_CHANGE, args=[case_id]), data)
    assert response.status_code == 302, response.content.decode()


def test_an_editor_declines_with_the_reason_in_one_step(client, editor, proposal):
    client.force_login(editor)
    page = client.get(reverse(CHANGE, args=[proposal.pk])).content.decode()
    assert '<input type="submit" value="Decline" name="_decline">' in page
    assert 'name="_accept"' not in page  # accepting is a reviewer's
    said = press(client, proposal, "_decline", decline_reason="The source does not describe an incident.")
    assert said == [f"{proposal.title}: declined."]
    proposal.refresh_from_db()
    assert proposal.status == "declined"
    assert proposal.decline_reason == "The source does not describe an incident."
    assert 'name="_decline"' not in client.get(reverse(CHANGE, args=[proposal.pk])).content.decode()


def test_declining_without_a_reason_says_where_and_declines_nothing(client, editor, proposal):
    client.force_login(editor)
    said = press(client, proposal, "_decline")
    assert said == [
        f"{proposal.title}: say why the proposal is declined: open it, write the reason in its "
        "“Decline reason” field and press “Decline”"
    ]
    assert Proposal.objects.get().status == "received"


def test_the_page_warns_of_an_unknown_root_cause_over_a_stated_one(client, reviewer, proposal):
    write_symptoms(client, reviewer, proposal.case_id)
    assert checks_shown(client, proposal) == "Nothing to check."
    write_root_cause(client, reviewer, proposal.case_id, CAUSE)
    warning = (
        f"{proposal.case_id}'s root cause is “Root cause unknown” but its description states one "
        f"(“{CAUSE}”): choose the category it names in the case before accepting, or accept as it "
        "is if the cause is only suspected."
    )
    assert checks_shown(client, proposal) == warning
    # A warning, not a refusal: the Accept button publishes, and says it again.
    said = press(client, proposal, "_accept")
    assert said == [f"{proposal.title}: accepted; {proposal.case_id} is published.", warning]
    assert Case.objects.get(id=proposal.case_id).status == "published"


def test_a_named_category_is_not_warned_of(client, reviewer, proposal):
    write_symptoms(client, reviewer, proposal.case_id)
    write_root_cause(client, reviewer, proposal.case_id, CAUSE)
    Case.objects.filter(id=proposal.case_id).update(
        root_cause_category=Term.objects.get(facet="root_cause", name="Capacity exhaustion")
    )
    assert checks_shown(client, proposal) == "Nothing to check."
    services.accept(proposal, user=reviewer)


@pytest.mark.parametrize(
    ("description", "states"),
    [
        (CAUSE, True),
        ("", False),
        ("   ", False),
        (None, False),
        ("The source does not say.", False),
        ("Unclear: the team suspected the switch firmware.", False),
        ("Not yet determined; under investigation.", False),
    ],
)
def test_what_counts_as_a_stated_cause(description, states):
    assert states_a_cause(description) is states
