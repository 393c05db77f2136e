"""`GET /api/cases/{id}/similar` lists the hand-linked cases apart, in `related` (walk #36).

IL-0463's closest case is its hand-linked sibling IL-0464 (TGI frozen in ncclAllReduce under
CUDA graphs), which `results` leave out (`without_hand_linked`); the answer never named it,
so a script using `/similar` to find "the other reports of this" missed the best one. MCP
`similar_incidents` and the case page list it; the API now does too, in the same shape.
"""

from __future__ import annotations

import pytest

from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

SIBLING = {
    "id": "IL-0464",
    "url": "http://testserver/api/cases/IL-0464",
    "html_url": "http://testserver/cases/IL-0464",
}


def test_the_hand_linked_sibling_is_in_related_not_in_results(client):
    body = client.get("/api/cases/IL-0463/similar", {"limit": 20}).json()
    assert [{k: case[k] for k in SIBLING} for case in body["related"]] == [SIBLING]
    assert body["related"][0]["title"].startswith("Text Generation Inference shards serving Llama 3 70B")
    assert "IL-0464" not in [case["id"] for case in body["results"]]
    tool = InMemoryMcp().ok("similar_incidents", id="IL-0463", limit=20)
    assert [(c["id"], c["title"]) for c in tool["related"]] == [
        (c["id"], c["title"]) for c in body["related"]
    ]


def test_a_case_nobody_linked_has_none(client):
    body = client.get("/api/cases/IL-0603/similar").json()
    assert body["related"] == [] and body["results"]
