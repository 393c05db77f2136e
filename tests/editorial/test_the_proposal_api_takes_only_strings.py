"""`POST /api/proposals/` reads every field as a string (`source_urls` also as a list of
strings): any other JSON type is a 400 naming the field, and nothing is stored."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.proposals.models import Proposal
from tests.editorial.test_proposals import NEW as PROPOSAL

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

# The proposal of test_proposals.py, its source URLs as a JSON list.
NEW = {**PROPOSAL, "source_urls": [PROPOSAL["source_urls"]]}


def post(**changes):
    return APIClient().post(reverse("api:proposal-create"), {**NEW, **changes}, format="json")


def test_an_object_for_the_text_is_refused_naming_it():
    response = post(text={"a": "Writes to the shared file system blocked every rank."})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json() == {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "detail": "text: must be a string, not an object",
        "instance": "/api/proposals/",
        "errors": [{"parameter": "text", "detail": "must be a string, not an object"}],
    }
    assert not Proposal.objects.exists()


@pytest.mark.parametrize(
    ("field", "value", "kind"),
    [
        ("title", ["Checkpoint writes stalled a 512-GPU job"], "a list"),
        ("title", 1234567890123, "a number"),
        ("organization", True, "a boolean"),
        ("published", None, "null"),
        ("topic", 3, "a number"),
        ("root_cause", 1.5, "a number"),
        ("kind", ["new"], "a list"),
        ("contact", None, "null"),
        ("case_id", {"id": "IL-0428"}, "an object"),
        # `website`, the HTML form's honeypot, is no key of the API: refused as unknown
        # (tests/api/test_a_body_key_the_endpoint_does_not_read_is_a_400.py).
    ],
)
def test_every_string_field_refuses_other_json_types(field, value, kind):
    response = post(**{field: value})
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": field, "detail": f"must be a string, not {kind}"}]
    assert not Proposal.objects.exists()


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ({"url": "https://example.org/a"}, "must be a string or a list of strings, not an object"),
        (7, "must be a string or a list of strings, not a number"),
        (None, "must be a string or a list of strings, not null"),
        (["https://example.org/a", ["https://example.org/b"]], "must list strings, not a list"),
        (["https://example.org/a", None], "must list strings, not null"),
    ],
)
def test_source_urls_are_a_string_or_a_list_of_strings(value, detail):
    response = post(source_urls=value)
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "source_urls", "detail": detail}]
    assert not Proposal.objects.exists()


def test_every_mistyped_field_is_named_at_once():
    response = post(title=["x"], text={"a": "b"}, source_urls=1)
    assert [e["parameter"] for e in response.json()["errors"]] == ["title", "text", "source_urls"]


def test_strings_and_a_list_of_urls_are_stored_as_sent():
    response = post(root_cause="hardware-fault")
    assert response.status_code == 201, response.json()
    proposal = Proposal.objects.get()
    assert (proposal.title, proposal.text, proposal.source_urls) == (
        NEW["title"],
        NEW["text"],
        NEW["source_urls"],
    )
    assert proposal.case.root_cause_category.name == "Hardware fault"


def test_an_unknown_root_cause_slug_is_refused_naming_it():
    response = post(root_cause="cosmic-rays-probably")
    assert response.status_code == 400
    assert [e["parameter"] for e in response.json()["errors"]] == ["root_cause"]
