"""A correction needs only the case it corrects and what is wrong: its title and source URLs
are optional (the case cites its sources already); an untitled one is named by its case and
the start of its text. A new case still needs both."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.proposals.models import Proposal

from .test_proposals import form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

TEXT = "The postmortem says 64 nodes, not 32, in its second paragraph."


def test_the_form_takes_a_correction_with_only_its_case_and_text(client):
    response = form_post(client, kind="correction", case_id="IL-0428", title="", source_urls="", text=TEXT)
    assert response.status_code == 302, response.context["form"].errors
    proposal = Proposal.objects.get()
    assert (proposal.kind, proposal.case_id, proposal.text, proposal.source_urls) == (
        "correction",
        "IL-0428",
        TEXT,
        [],
    )
    assert proposal.title == f"Correction to IL-0428: {TEXT}"


def test_the_api_takes_a_correction_with_only_its_case_and_text():
    response = APIClient().post(
        reverse("api:proposal-create"),
        {"kind": "correction", "case_id": "il0428", "text": "3 h, not 2."},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert (response.json()["case"], response.json()["title"]) == (
        "IL-0428",
        "Correction to IL-0428: 3 h, not 2.",
    )


def test_a_long_first_line_is_cut_at_a_word_in_the_title(client):
    text = "The node count " + "and the GPU count " * 10 + "are wrong.\nDetails follow."
    assert (
        form_post(
            client, kind="correction", case_id="IL-0428", title="", source_urls="", text=text
        ).status_code
        == 302
    )
    title = Proposal.objects.get().title
    shown = title.removeprefix("Correction to IL-0428: ")
    assert shown.endswith("…") and len(shown) <= 81
    assert text.startswith(shown[:-1]) and text[len(shown) - 1] == " "  # cut between words


def test_a_correction_still_needs_its_case_and_text(client):
    response = form_post(client, kind="correction", case_id="", title="", source_urls="", text="")
    errors = response.context["form"].errors
    assert set(errors) == {"case_id", "text"}


def test_a_new_case_still_needs_a_title_and_a_source(client):
    response = form_post(client, title="", source_urls="")
    errors = response.context["form"].errors
    assert errors["title"] == ["needed for a new case"]
    assert errors["source_urls"] == ["give at least one public source URL"]
    assert not Proposal.objects.exists()
