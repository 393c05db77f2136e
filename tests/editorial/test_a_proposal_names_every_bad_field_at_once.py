"""`POST /api/proposals/` names every bad field in one answer, each in the words of every
other parameter error (a phrase after the name: `must be at least 10 characters long; it has
5`), not Django's sentences: an unknown topic used to be refused alone, and the date and URL
errors came only after it was fixed."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.proposals.models import Proposal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]


def post(body):
    return APIClient().post(reverse("api:proposal-create"), body, format="json")


def test_an_unknown_topic_is_named_with_the_date_and_the_url():
    response = post(
        {
            "kind": "new",
            "title": "A long enough title for it",
            "text": "x",
            "organization": "Meta",
            "published": "2024-13-45",
            "topic": "nope",
            "source_urls": ["ftp://x"],
        }
    )
    assert response.status_code == 400
    body = response.json()
    assert [(e["parameter"], e["detail"]) for e in body["errors"]] == [
        ("published", "2024-13-45 is not a date: there is no month 13 (months are 01 to 12)"),
        ("topic", "unknown topic 'nope'"),
        ("source_urls", "not an http(s) URL: ftp://x"),
    ]
    assert body["errors"][1]["value"] == "nope"
    assert "training-hang" in body["errors"][1]["suggestions"]
    assert body["detail"] == (
        "published: 2024-13-45 is not a date: there is no month 13 (months are 01 to 12); "
        "topic: unknown topic 'nope'; source_urls: not an http(s) URL: ftp://x"
    )
    assert not Proposal.objects.exists()


def test_djangos_messages_are_worded_as_every_parameter_error():
    response = post({"kind": "new", "title": "short", "text": "", "source_urls": []})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameter": "title", "detail": "must be at least 10 characters long; it has 5"},
        {"parameter": "organization", "detail": "needed for a new case"},
        {"parameter": "published", "detail": "needed for a new case"},
        {"parameter": "text", "detail": "must not be empty"},
        {"parameter": "topic", "detail": "needed for a new case"},
        {"parameter": "source_urls", "detail": "give at least one public source URL"},
    ]


def test_a_field_left_out_is_required_and_a_refused_choice_names_the_choices():
    response = post({"kind": "bogus", "contact": "nope"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameter": "kind",
            "detail": "must be one of new, correction",
            "value": "bogus",
            "suggestions": ["new", "correction"],
        },
        {"parameter": "text", "detail": "is required"},
        {"parameter": "contact", "detail": "must be an e-mail address such as name@example.org"},
    ]


def test_a_mistyped_field_is_named_with_the_forms_errors_and_not_as_missing():
    response = post({"kind": "correction", "case_id": "IL-9999", "text": 5})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [e["parameter"] for e in errors] == ["case_id", "text"]
    assert errors[0]["detail"].startswith("no published case IL-9999. ")
    assert errors[1]["detail"] == "must be a string, not a number"
