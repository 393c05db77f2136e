"""The case document's `affected`, `references` and `symptoms.error_codes` (issue 15) are
served the same by the API's case detail and MCP's get_incident."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_api_and_mcp_serve_the_new_fields(client, mcp):
    body = client.get("/api/cases/IL-0604").json()
    assert body["affected"] == [
        {
            "component": "NCCL",
            "versions": ["2.22.3"],
            "introduced": "0",  # its source: "NCCL <= 2.22.3"
            "fixed": "2.23.4",
            "last_affected": None,
        }
    ]
    assert [r["id"] for r in body["references"]] == ["NVIDIA/nccl#1676"]
    document = mcp.ok("get_incident", id="IL-0604", fields=["affected", "references", "symptoms"])
    assert document["affected"] == body["affected"]
    assert document["references"] == body["references"]
    assert document["symptoms"]["error_codes"] == body["symptoms"]["error_codes"]
