"""/api/docs/ groups the operations by what a client does (the schema's tags): every
operation was under its URL segment (14 groups) and the index under "default"."""

from __future__ import annotations

from collections import defaultdict

import pytest

pytestmark = pytest.mark.django_db


def test_every_operation_has_one_of_four_tags_in_the_schemas_order(client):
    schema = client.get("/api/schema/?format=json").json()
    assert [tag["name"] for tag in schema["tags"]] == ["cases", "matching", "vocabulary", "editing"]
    assert all(tag["description"] for tag in schema["tags"])
    grouped: dict[str, list[str]] = defaultdict(list)
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            [tag] = operation["tags"]
            grouped[tag].append(f"{method.upper()} {path}")
    assert sorted(grouped["matching"]) == ["POST /api/affected", "POST /api/match", "POST /api/triage"]
    assert sorted(grouped["editing"]) == [
        "GET /api/proposals/lookalikes",
        "GET /api/proposals/{token}",
        "PATCH /api/cases/{case_id}",
        "POST /api/cases/",
        "POST /api/cases/{case_id}/merge",
        "POST /api/cases/{case_id}/status",
        "POST /api/proposals/",
        "PUT /api/cases/{case_id}",
    ]
    assert "GET /api/" in grouped["cases"] and "GET /api/cases/{case_id}" in grouped["cases"]
    assert sorted(grouped["vocabulary"]) == [
        "GET /api/codes/",
        "GET /api/codes/{slug}",
        "GET /api/stats",
        "GET /api/topics/",
        "GET /api/topics/{slug}",
        "GET /api/vocab/",
        "GET /api/vocab/{facet}",
    ]
