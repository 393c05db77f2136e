"""`POST /api/proposals/` names an unknown key with every other bad field in one answer: it
was refused alone, so a proposer fixing `sources` learnt only on the next try that the title
was too short and the date no date. The form's errors for the key an unknown one may mean
(`sources` -> `source_urls`) are left out: "give at least one public source URL" would say
to add what was sent under another name."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.proposals.models import Proposal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

ACCEPTS = (
    "unknown field; the body accepts kind, title, text, source_urls, case_id, organization, "
    "published, topic, root_cause, contact"
)


def post(body):
    return APIClient().post(reverse("api:proposal-create"), body, format="json")


def test_an_unknown_key_is_named_with_the_forms_errors_in_their_words():
    response = post(
        {
            "kind": "new",
            "title": "short",
            "text": "The job hung for an hour.",
            "organization": "Meta",
            "published": "2024-13-45",
            "topic": "training-hang",
            "sources": ["https://example.org/postmortem"],
            "colour": "blue",
        }
    )
    assert response.status_code == 400
    body = response.json()
    assert body["errors"] == [
        {"parameter": "sources", "detail": ACCEPTS, "suggestions": ["source_urls"]},
        {"parameter": "colour", "detail": ACCEPTS},
        {"parameter": "title", "detail": "must be at least 10 characters long; it has 5"},
        {
            "parameter": "published",
            "detail": "2024-13-45 is not a date: there is no month 13 (months are 01 to 12)",
        },
    ]
    assert body["detail"].startswith(f"sources: {ACCEPTS}; colour: {ACCEPTS}; title: must be at least")
    assert not Proposal.objects.exists()


def test_the_key_meant_keeps_its_own_error_when_it_was_sent_too():
    response = post(
        {
            "kind": "correction",
            "case_id": "IL-0428",
            "text": "The postmortem names a switch firmware fault as the cause.",
            "source_urls": ["ftp://x"],
            "source_url": "https://example.org/postmortem",
        }
    )
    assert response.json()["errors"] == [
        {"parameter": "source_url", "detail": ACCEPTS, "suggestions": ["source_urls"]},
        {"parameter": "source_urls", "detail": "not an http(s) URL: ftp://x"},
    ]
    assert not Proposal.objects.exists()
