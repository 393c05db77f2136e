"""A correction names its case in any spelling the case pages and `get_incident` read
(`428`, `il0428`), and an unknown id is answered with the closest published ids, as the
case lookup names them, at both doors (the API also as `suggestions`)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.models import Case
from incidents.proposals.models import Proposal
from incidents.selectors import find_case

from .test_proposals import form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

CORRECTION = {
    "kind": "correction",
    "title": "The time to resolve is wrong",
    "text": "The TTR is 3 hours, not 2.",
    "source_urls": "https://example.org/postmortem",
}


def api_post(case_id: str):
    return APIClient().post(reverse("api:proposal-create"), {**CORRECTION, "case_id": case_id}, format="json")


@pytest.mark.parametrize("spelling", ["428", "0428", "il0428", "il-0428", " IL-0428 "])
def test_every_spelling_the_pages_read_names_the_case(client, spelling):
    assert find_case(spelling.strip()).found  # as /cases/428 and get_incident read it
    response = api_post(spelling)
    assert response.status_code == 201
    assert response.json()["case"] == "IL-0428"
    assert form_post(client, **CORRECTION, case_id=spelling).status_code == 302
    assert list(Proposal.objects.values_list("case_id", flat=True)) == ["IL-0428", "IL-0428"]


def test_an_unknown_id_names_the_closest_published_ids(client):
    closest = find_case("IL-9999").closest
    assert len(closest) == 3
    response = api_post("IL-9999")
    assert response.status_code == 400
    # The API's words are every parameter error's: a phrase after the name.
    phrase = f"no published case IL-9999. Did you mean {', '.join(closest)}?"
    assert response.json()["errors"] == [{"parameter": "case_id", "detail": phrase, "suggestions": closest}]
    page = form_post(client, **CORRECTION, case_id="IL-9999")
    assert page.status_code == 400
    assert page.context["form"].errors["case_id"] == [phrase]  # the API's words
    assert not Proposal.objects.exists()


def test_a_case_that_is_not_published_is_not_corrected():
    Case.objects.filter(id="IL-0428").update(status=Case.Status.RETRACTED)
    response = api_post("428")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["detail"].startswith("no published case 428. Did you mean ")
    assert "IL-0428" not in error["suggestions"]
