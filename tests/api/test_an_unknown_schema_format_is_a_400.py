"""`/api/schema/?format=xml` is a 400 problem naming the formats the schema is served in
(json, yaml), not DRF's 404 "Not found." (the schema is there, in other formats)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("format", ["xml", "JSON", "html"])
def test_an_unknown_format_is_a_400_naming_json_and_yaml(client, format):
    response = client.get("/api/schema/", {"format": format})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    problem = json.loads(response.content)
    detail = f"unknown format {format!r}; the schema is served as json or yaml"
    assert problem["detail"] == f"format: {detail}"
    assert problem["errors"] == [
        {"parameter": "format", "detail": detail, "value": format, "suggestions": ["json", "yaml"]}
    ]


def test_the_formats_it_serves_still_answer(client):
    assert client.get("/api/schema/", {"format": "json"}).status_code == 200
    assert client.get("/api/schema/", {"format": "yaml"}).status_code == 200
