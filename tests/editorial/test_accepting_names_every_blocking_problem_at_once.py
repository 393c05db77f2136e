"""The proposal's page lists every problem that refuses accepting it, before the click, and
a refused accept names them all at once, its title as written.

The walk (W10) proposed "vLLM 0.6 engine died ..." with an organization the vocabulary
lacks: the page said "Checks before accepting: Nothing to check.", the first Accept was
refused for the missing symptoms description alone, the second (after writing it) for the
organization, and each refusal began "VLLM 0.6 ..." (the admin's messages went through
capfirst)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from incidents.models import Case, Facet, Term
from incidents.proposals import services
from incidents.proposals.models import Proposal
from tests.factories import NEW_PROPOSAL as NEW

from .conftest import form_data, write_symptoms

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

CHANGE = "admin:incidents_proposal_change"
TITLE = "vLLM 0.6 engine died under load behind the gateway"


@pytest.fixture
def proposal(client) -> Proposal:
    page = client.get(reverse("incidents:propose"))
    data = form_data(page.content.decode(), None)
    topic = Term.objects.get(facet="topic", slug="checkpoint-storage")
    fields = {**NEW, "title": TITLE, "topic": str(topic.pk), "organization": "Acme Robotics"}
    data.update({k: [v] for k, v in fields.items()})
    assert client.post(reverse("incidents:propose"), data).status_code == 302
    return Proposal.objects.get()


def no_symptoms(case_id: str) -> str:
    return (
        f"its draft {case_id} has no “Symptoms description”: open {case_id} in the admin, write what "
        "operators saw in that field and save, then accept"
    )


ORGANIZATION = (
    "the proposer named the organization “Acme Robotics”, which the vocabulary lacks: choose the "
    "organization it is under “Organization it is” (or add it there with +), save, then accept"
)


def checks_items(client, proposal: Proposal) -> list[str]:
    page = client.get(reverse(CHANGE, args=[proposal.pk])).content.decode()
    [shown] = re.findall(
        r'<label>Checks before accepting:</label>\s*<div class="readonly">(.*?)</div>', page, re.S
    )
    items = re.findall(r"<li>(.*?)</li>", shown, re.S)
    return [unescape(item) for item in items] if items else [unescape(shown)]


def messages_after_accept(client, proposal: Proposal) -> list[str]:
    url = reverse(CHANGE, args=[proposal.pk])
    data = form_data(client.get(url).content.decode(), "proposal_form")
    data["_accept"] = ["1"]
    page = client.post(url, data, follow=True).content.decode()
    [listed] = re.findall(r'<ul class="messagelist">(.*?)</ul>', page, re.S)
    return [unescape(m) for m in re.findall(r"<li[^>]*>(.*?)</li>", listed, re.S)]


def test_the_page_lists_both_problems_and_the_refusal_names_both(client, reviewer, proposal):
    case_id = proposal.case_id
    client.force_login(reviewer)
    assert services.acceptance_problems(proposal) == [no_symptoms(case_id), ORGANIZATION]
    assert checks_items(client, proposal) == [
        f"Blocks accepting: {no_symptoms(case_id)}.",
        f"Blocks accepting: {ORGANIZATION}.",
    ]
    assert messages_after_accept(client, proposal) == [
        f"{TITLE}: 2 problems block accepting: (1) {no_symptoms(case_id)}; (2) {ORGANIZATION}"
    ]
    assert Case.objects.get(pk=case_id).status == "draft"
    # One fixed, the other is still listed, alone; the refusal names it alone.
    write_symptoms(client, reviewer, case_id)
    client.force_login(reviewer)
    assert checks_items(client, proposal) == [f"Blocks accepting: {ORGANIZATION}."]
    assert messages_after_accept(client, proposal) == [f"{TITLE}: {ORGANIZATION}"]
    # Both fixed: nothing to check, and accepting publishes.
    meta = Term.objects.get(facet=Facet.ORGANIZATION, name="Meta")
    url = reverse(CHANGE, args=[proposal.pk])
    data = form_data(client.get(url).content.decode(), "proposal_form")
    data["organization_term"] = [str(meta.pk)]
    assert client.post(url, data).status_code == 302
    client.get(url)  # shows (and so clears) the save's message
    assert checks_items(client, proposal) == ["Nothing to check."]
    assert messages_after_accept(client, proposal)[0] == f"{TITLE}: accepted; {case_id} is published."
    assert (Case.objects.get(pk=case_id).status, Case.objects.get(pk=case_id).organization) == (
        "published",
        "Meta",
    )
    assert services.acceptance_problems(Proposal.objects.get()) == []  # accepted: nothing waits


def test_a_correction_has_no_acceptance_problems(proposal, reviewer):
    case = Case.objects.get(id="IL-0430")
    correction = services.propose_correction(
        case=case, title="", text="The node count is 64.", source_urls=[]
    )
    assert services.acceptance_problems(correction) == []
