"""Triage gives a case listed as like the first hit that hit's id in `like`, as search does.

A search hit and a log hit listed as the case like the first hit name it in `like`
(`test_a_hit_like_the_first_names_it_at_every_door.py`); triage, which reads both, said so
only in its `why` text ("Similar to IL-0459, the first hit."). Its cases now carry the
hit's own `like` (`triage.Candidate.like`), in POST /api/triage (null on the others) and
MCP triage (left out of the others), described in the OpenAPI schema and the tool's output
schema.
"""

from __future__ import annotations

import pytest

from incidents.triage import triage
from tests.api.conftest import openapi_schema
from tests.reads.test_a_hit_like_the_first_names_it_at_every_door import LOG, likes

pytestmark = pytest.mark.django_db

# One match (IL-0459); the partial matches fill up to three, the first of them IL-0530, the
# match's nearest case, which shares no word of the query.
WORDS = "serialize-image-pulls"
# LOG: IL-0498 quotes its Xid 149; IL-0499, like it, is lifted by that likeness.


def test_the_words_partial_match_like_the_first_hit_names_it(client, mcp):
    answer = triage(symptoms=WORDS)
    assert [(c.case.id, c.confidence, c.like) for c in answer.candidates][:2] == [
        ("IL-0459", "strong", None),
        ("IL-0530", "weak", "IL-0459"),
    ]
    assert answer.candidates[1].reasons == ["Similar to IL-0459, the first hit."]
    assert {c.like for c in answer.candidates[2:]} == {None}
    body = client.post("/api/triage", {"symptoms": WORDS}, content_type="application/json").json()
    expected = [(c.case.id, c.like) for c in answer.candidates]
    assert likes(body["cases"]) == expected
    assert all("like" in case for case in body["cases"])  # null, not left out
    tool = mcp.ok("triage", symptoms=WORDS)
    assert likes(tool["cases"]) == expected
    # MCP leaves it out where it is null, as search_incidents does.
    assert [case["id"] for case in tool["cases"] if "like" in case] == ["IL-0530"]


def test_a_log_hit_like_the_first_names_it(client, mcp):
    text = LOG.read_text(encoding="utf-8")
    answer = triage(log=text)
    by_id = {c.case.id: c for c in answer.candidates}
    assert answer.candidates[0].case.id == "IL-0498" and answer.candidates[0].like is None
    assert by_id["IL-0499"].like == "IL-0498"
    for candidate in answer.candidates:
        said = any(r.endswith("Similar to IL-0498, the first hit.") for r in candidate.reasons)
        assert said == (candidate.like == "IL-0498"), candidate.case.id
    body = client.post("/api/triage", {"text": text}, content_type="application/json").json()
    assert likes(body["cases"]) == [(c.case.id, c.like) for c in answer.candidates]


def test_the_schemas_describe_it(mcp):
    field = openapi_schema()["components"]["schemas"]["TriageCase"]["properties"]["like"]
    assert field["type"] == ["string", "null"]
    assert "first hit" in field["description"]
    tools = {t.name: t.output_schema for t in mcp.run(lambda client: client.list_tools()).tools}
    # Output schemas name the fields only (`mcp_server.protocol`: the list's 16 KB budget).
    case = tools["triage"]["properties"]["cases"]["items"]["properties"]
    assert list(case)[3:5] == ["why", "like"]
