"""GET /api/cases/{id}: the schema document plus links; retracted cases still resolve."""

from __future__ import annotations

import json

import pytest

from incidents.documents import case_document
from incidents.models import Case
from incidents.services import import_case_files
from tests.conftest import load_fixture
from tests.factories import synthetic_case, write_cases

from .conftest import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_it_serves_the_export_document_plus_three_links(client):
    response = client.get("/api/cases/IL-0428")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/{case_id}")
    body = response.json()
    assert body.pop("url") == "http://testserver/api/cases/IL-0428"
    assert body.pop("html_url") == "http://testserver/cases/IL-0428"
    assert body.pop("similar_url") == "http://testserver/api/cases/IL-0428/similar"
    assert body.pop("history_url") == "http://testserver/api/cases/IL-0428/history"
    assert body.pop("retraction_reason") is None
    case = Case.objects.with_document().get(id="IL-0428")
    assert body.pop("modified") == case.modified.isoformat().replace("+00:00", "Z")
    assert json.dumps(body) == json.dumps(case_document(case))  # same keys, same order
    assert body["environment"]["cluster"] == load_fixture("IL-0428")["environment"]["cluster"]


def test_a_retracted_case_still_resolves_marked_as_retracted(client, tmp_path):
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(7, status="retracted")]))
    response = client.get("/api/cases/IL-900007")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/{case_id}")
    assert response.json()["status"] == "retracted"
    listed = client.get("/api/cases/?page_size=100").json()["results"]
    assert "IL-900007" not in [item["id"] for item in listed]


def test_a_draft_is_not_found(client, tmp_path):
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(8, status="draft")]))
    assert client.get("/api/cases/IL-900008").status_code == 404


def test_another_letter_case_redirects_to_the_canonical_id(client):
    response = client.get("/api/cases/il-0428")
    assert response.status_code == 301
    assert response["Location"] == "/api/cases/IL-0428"
    assert not response.has_header("ETag")
    similar = client.get("/api/cases/il-0428/similar?limit=2")
    assert (similar.status_code, similar["Location"]) == (301, "/api/cases/IL-0428/similar?limit=2")
