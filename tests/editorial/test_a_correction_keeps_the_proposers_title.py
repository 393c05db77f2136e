"""A correction keeps the title its proposer wrote (what is wrong); which case it corrects
is said beside it, in the status page, the API and the admin."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.models import Case
from incidents.proposals.models import Proposal

from .test_proposals import form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

TITLE = "Wrong node count in the summary"
CORRECTION = {
    "kind": "correction",
    "case_id": "IL-0428",
    "title": TITLE,
    "text": "The postmortem says 64 nodes, not 32.",
    "source_urls": ["https://example.org/postmortem"],
}


def test_the_form_stores_the_proposers_title_and_the_status_page_names_the_case(client):
    response = form_post(client, **{**CORRECTION, "source_urls": CORRECTION["source_urls"][0]})
    assert response.status_code == 302
    proposal = Proposal.objects.get()
    assert (proposal.kind, proposal.title, proposal.case_id) == ("correction", TITLE, "IL-0428")
    page = client.get(response["Location"]).content.decode()
    case = Case.objects.get(id="IL-0428")
    assert f'<p class="proposal-title">{TITLE}</p>' in page
    assert f'A correction to <a href="{case.get_absolute_url()}">IL-0428</a>: ' in page


def test_the_api_answers_the_proposers_title_and_the_corrected_case():
    client = APIClient()
    response = client.post(reverse("api:proposal-create"), CORRECTION, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["kind"], body["title"], body["case"]) == ("correction", TITLE, "IL-0428")
    status = client.get(body["url"].removeprefix("http://testserver")).json()
    assert (status["title"], status["case"]) == (TITLE, "IL-0428")


def test_the_admin_queue_shows_the_proposers_title(client, editor):
    APIClient().post(reverse("api:proposal-create"), CORRECTION, format="json")
    proposal = Proposal.objects.get()
    client.force_login(editor)
    queue = client.get(reverse("admin:incidents_proposal_changelist")).content.decode()
    assert TITLE in queue and "IL-0428" in queue
    detail = client.get(reverse("admin:incidents_proposal_change", args=[proposal.pk])).content.decode()
    assert TITLE in detail and "IL-0428" in detail
    assert str(proposal) == f"Correction: {TITLE}"
