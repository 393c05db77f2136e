"""`GET /api/cases/?fields=` accepts every field a hit carries: the list of accepted names was
kept apart from the hit's shape and left `confidence` out, so `?q=nccl&fields=id,confidence`
was refused with "unknown field" though every hit of that query has one."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_confidence_can_be_asked_for_alone(client):
    whole = client.get("/api/cases/?q=nccl&facets=false").json()["results"]
    response = client.get("/api/cases/?q=nccl&fields=id,confidence&facets=false")
    assert response.status_code == 200
    assert response.json()["results"] == [{"id": hit["id"], "confidence": hit["confidence"]} for hit in whole]
    assert {hit["confidence"] for hit in response.json()["results"]} <= {"strong", "possible"}


def test_every_field_of_a_hit_is_accepted_and_kept(client):
    [hit] = client.get("/api/cases/?q=nccl&page_size=1&facets=false").json()["results"]
    for name in hit:
        response = client.get(f"/api/cases/?q=nccl&page_size=1&facets=false&fields={name}")
        assert response.status_code == 200, (name, response.json())
        assert response.json()["results"] == [{"id": hit["id"], name: hit[name]}]


def test_the_schema_lists_every_field_a_hit_has(client):
    [hit] = client.get("/api/cases/?q=nccl&page_size=1&facets=false").json()["results"]
    schema = client.get("/api/schema/?format=json").json()
    [fields] = [p for p in schema["paths"]["/api/cases/"]["get"]["parameters"] if p["name"] == "fields"]
    # A list of the fields, or only blanks (not given: `api.schema.allow_empty_values`).
    listed, blank = fields["schema"]["anyOf"]
    assert blank == {"type": "string", "pattern": "^\\s*$"}
    assert sorted(listed["items"]["enum"]) == sorted(hit)
