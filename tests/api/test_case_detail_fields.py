"""GET /api/cases/{id}?fields=: the detail takes the case list's `fields` (same declaration,
same parser), keeping the named fields and `id`, in the document's order."""

from __future__ import annotations

import pytest

from incidents.models import Case
from tests.conftest import load_fixture

from .conftest import assert_matches_schema, openapi_schema

pytestmark = pytest.mark.django_db


def test_fields_keeps_the_named_fields_and_the_id(client):
    response = client.get("/api/cases/IL-0428?fields=title")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/{case_id}")
    whole = client.get("/api/cases/IL-0428").json()
    assert response.json() == {"id": "IL-0428", "title": whole["title"]}


def test_a_retracted_case_keeps_its_status_whatever_fields_names(client):
    # `?fields=title` of a retracted case carried no sign of the retraction.
    reason = "Duplicate of a vendor advisory"
    Case.objects.filter(id="IL-0480").update(status=Case.Status.RETRACTED, retraction_reason=reason)
    response = client.get("/api/cases/IL-0480?fields=title")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/{case_id}")
    assert response.json() == {
        "id": "IL-0480",
        "title": load_fixture("IL-0480")["title"],
        "status": "retracted",
        "retraction_reason": reason,
    }
    # A published case is trimmed as asked.
    assert set(client.get("/api/cases/IL-0428?fields=title").json()) == {"id", "title"}


def test_the_schema_says_a_trimmed_retracted_case_keeps_its_status():
    description = openapi_schema()["components"]["schemas"]["CaseDetailFields"]["description"]
    assert "keeps `status` and `retraction_reason` too, whatever `fields` names" in description


def test_fields_may_be_comma_separated_or_repeated_and_keep_the_document_order(client):
    whole = client.get("/api/cases/IL-0428").json()
    for query in ("fields=url,checks,root_cause", "fields=url&fields=checks&fields=root_cause"):
        body = client.get(f"/api/cases/IL-0428?{query}").json()
        assert body == {key: whole[key] for key in ("id", "root_cause", "checks", "url")}


def test_an_unknown_field_is_refused_naming_the_choices(client):
    response = client.get("/api/cases/IL-0428?fields=title,titel")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["parameter"], error["value"], error["suggestions"]) == ("fields", "titel", ["title"])
    assert error["detail"].startswith("unknown field; choose from id, title, organization")


def test_fields_naming_no_field_is_refused(client):
    # `fields=` (empty) is not given: the whole case (tests/reads/test_an_empty_parameter_is_not_given.py).
    [error] = client.get("/api/cases/IL-0428?fields=,").json()["errors"]
    assert error["parameter"] == "fields"
    assert error["detail"].startswith("name at least one field")


def test_a_misspelt_id_redirects_keeping_fields(client):
    response = client.get("/api/cases/il-0428?fields=title")
    assert (response.status_code, response["Location"]) == (301, "/api/cases/IL-0428?fields=title")
