"""The OpenAPI schema is generated from the code, describes everything, and the
interactive documentation works offline (its assets are served by the app)."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from .conftest import openapi_schema

pytestmark = pytest.mark.django_db

PATHS = {
    "/api/": {"get"},
    "/api/cases/": {"get", "post"},
    "/api/cases/{case_id}": {"get", "put", "patch"},
    "/api/cases/{case_id}/similar": {"get"},
    "/api/cases/{case_id}/history": {"get"},
    "/api/cases/{case_id}/status": {"post"},
    "/api/cases/{case_id}/merge": {"post"},
    "/api/proposals/": {"post"},
    "/api/proposals/lookalikes": {"get"},
    "/api/proposals/{token}": {"get"},
    "/api/topics/": {"get"},
    "/api/topics/{slug}": {"get"},
    "/api/vocab/": {"get"},
    "/api/vocab/{facet}": {"get"},
    "/api/stats": {"get"},
    "/api/lookup": {"get"},
    "/api/codes/": {"get"},
    "/api/codes/{slug}": {"get"},
    "/api/affected": {"post"},
    "/api/match": {"post"},
    "/api/triage": {"post"},
    "/api/export": {"get"},
    "/api/export/vocab": {"get"},
    "/api/changes": {"get"},
}


def test_schema_is_served_as_openapi_3_1_json(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    body = response.json()
    assert body["openapi"] == "3.1.0"
    assert body == openapi_schema()
    assert client.get("/api/schema/?format=yaml")["Content-Type"].startswith("application/vnd.oai.openapi")


def test_schema_generates_without_warnings_and_validates(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


def test_every_endpoint_parameter_and_response_is_described():
    schema = openapi_schema()
    assert {path: set(ops) for path, ops in schema["paths"].items()} == PATHS
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            assert operation.get("summary") and operation.get("description"), where
            for parameter in operation.get("parameters", []):
                assert parameter.get("description"), f"{where} {parameter['name']}"
            for status, response in operation["responses"].items():
                assert response.get("description"), f"{where} {status}"
                for media_type in response.get("content", {}):
                    if status.startswith(("4", "5")):
                        assert media_type == "application/problem+json", f"{where} {status}"
            assert {"405", "429", "500"} <= set(operation["responses"]), where
    for name, component in schema["components"]["schemas"].items():
        if "enum" in component:
            continue
        assert component.get("description"), name
        if name in ("CaseDocument", "CaseDetail", "CaseDetailFields", "CaseWritten"):
            continue  # the case schema's own text, from case.schema.json
        for prop, definition in component.get("properties", {}).items():
            assert definition.get("description"), f"{name}.{prop}"


def test_filters_and_their_exclusion_form_are_documented():
    parameters = {p["name"]: p for p in openapi_schema()["paths"]["/api/cases/"]["get"]["parameters"]}
    for facet in ("topic", "symptom", "root_cause", "component", "organization", "year", "accelerator"):
        for name in (facet, f"exclude_{facet}"):
            assert parameters[name]["schema"]["type"] == "array", name
            assert parameters[name]["explode"] is True
    ordering, blank = parameters["ordering"]["schema"]["anyOf"]  # or only blanks: not given
    assert set(ordering["enum"]) == {"relevance", "-published", "published"}
    assert blank["pattern"] == "^\\s*$"
    assert "refused, not clamped" in parameters["page_size"]["description"]


def test_the_case_detail_schema_is_the_case_schema_plus_links():
    components = openapi_schema()["components"]["schemas"]
    detail, document = components["CaseDetail"], components["CaseDocument"]
    links = {"url", "html_url", "similar_url", "history_url"}
    assert set(detail["properties"]) == set(document["properties"]) | links | {
        "modified",
        "retraction_reason",
    }
    assert detail["additionalProperties"] is False
    assert "$ref" not in str(document)  # the case schema's $defs are inlined


def test_docs_page_loads_every_asset_from_this_server(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    # Swagger UI's start-up script is served by the docs view itself (no inline script: CSP).
    start_up = "/api/docs/?script="
    assert start_up in assets
    assets.remove(start_up)
    assert assets and all(a.startswith("/static/") for a in assets), assets
    script = client.get(start_up).content.decode()
    assert "/api/schema/" in script
    assert '"validatorUrl": null' in script or "validatorUrl" in script
    for asset in assets:
        served = client.get(asset)
        assert served.status_code == 200, asset
        b"".join(served.streaming_content) if served.streaming else served.content
