"""`GET /api/` lists what the OpenAPI schema lists, without generating the schema.

The index read its endpoints from `SchemaGenerator().get_schema()`: the first `GET /api/`
after a start took about 1.9 s, 0.9 s of it generating every operation's parameters, bodies
and responses (profiled: `drf_spectacular.openapi.AutoSchema._get_response_bodies`) for three
fields of each. It now reads the generator's endpoints and each operation's summary alone
(0.07 s), and lists the same.
"""

from __future__ import annotations

from unittest import mock

import pytest
from drf_spectacular.generators import SchemaGenerator

from api.views.index import METHODS, endpoints

pytestmark = pytest.mark.django_db


def from_the_schema() -> list[dict]:
    """The index as the generated schema gives it (what `endpoints` read before)."""
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    listed = []
    for path, operations in paths.items():
        methods = [m for m in METHODS if m in operations]
        summaries = [s for s in dict.fromkeys(operations[m].get("summary", "") for m in methods) if s]
        listed.append(
            {"path": path, "methods": [m.upper() for m in methods], "summary": " / ".join(summaries)}
        )
    return listed


def test_the_index_lists_what_the_schema_lists(client):
    body = client.get("/api/").json()
    assert body["endpoints"] == from_the_schema()
    assert body["schema"] == "http://testserver/api/schema/"
    assert body["endpoints"][:4] == [
        {"path": "/api/", "methods": ["GET"], "summary": "The API's index: its endpoints, schema and docs"},
        {"path": "/api/affected", "methods": ["POST"], "summary": "Am I affected?"},
        {
            "path": "/api/cases/",
            "methods": ["GET", "POST"],
            "summary": "Search and browse published cases / Create a case (editors)",
        },
        {
            "path": "/api/cases/{case_id}",
            "methods": ["GET", "PUT", "PATCH"],
            "summary": "One case / Replace a case (editors) / Patch a case (editors)",
        },
    ]
    assert len(body["endpoints"]) == 24


def test_the_index_is_built_without_generating_the_schema():
    endpoints.cache_clear()
    try:
        with mock.patch.object(SchemaGenerator, "get_schema", side_effect=AssertionError("schema generated")):
            listed = endpoints()
    finally:
        endpoints.cache_clear()
    assert list(listed) == from_the_schema()
