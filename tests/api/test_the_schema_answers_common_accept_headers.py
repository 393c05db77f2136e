"""`/api/schema/` answers the media types clients usually ask for, not only the OpenAPI
ones: `Accept: application/json` gets JSON, `Accept: application/yaml` YAML, each in the
type asked for; `*/*`, no `Accept`, a browser's and `?format=` keep their answers."""

from __future__ import annotations

import json

import pytest
import yaml

from .conftest import openapi_schema

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("application/json", "application/json"),
        ("application/vnd.oai.openapi+json", "application/vnd.oai.openapi+json"),
        ("*/*", "application/vnd.oai.openapi+json"),
        (None, "application/vnd.oai.openapi+json"),
        ("text/html, application/json;q=0.9", "application/json"),
    ],
)
def test_json_is_answered_in_the_type_asked_for(client, accept, content_type):
    response = client.get("/api/schema/", **({"HTTP_ACCEPT": accept} if accept else {}))
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == content_type
    assert json.loads(response.content) == openapi_schema()


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("application/yaml", "application/yaml"),
        ("application/vnd.oai.openapi", "application/vnd.oai.openapi"),
    ],
)
def test_yaml_is_answered_in_the_type_asked_for(client, accept, content_type):
    response = client.get("/api/schema/", HTTP_ACCEPT=accept)
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == content_type
    assert yaml.safe_load(response.content) == openapi_schema()


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("accept", [None, BROWSER])
def test_the_format_parameter_keeps_its_answers(client, accept):
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    as_json = client.get("/api/schema/?format=json", **headers)
    assert as_json["Content-Type"].split(";")[0] == "application/vnd.oai.openapi+json"
    assert json.loads(as_json.content) == openapi_schema()
    as_yaml = client.get("/api/schema/?format=yaml", **headers)
    assert as_yaml["Content-Type"].split(";")[0] == "application/vnd.oai.openapi"
    assert yaml.safe_load(as_yaml.content) == openapi_schema()


def test_a_type_it_cannot_give_is_still_a_406(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="text/csv")
    assert response.status_code == 406
