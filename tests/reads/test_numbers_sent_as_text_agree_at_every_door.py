"""A whole number in JSON is read by one rule at both JSON doors (`selectors.json_whole_number`):
a JSON integer or its digits as text, `5` and `"5"` alike. MCP tools took `"limit": "5"` while
`POST /api/match` refused it in its body; now both take it, both refuse `true`, `2.5` and
`"ten"`, and the refusal names the field or argument and what would work."""

from __future__ import annotations

import json

import pytest

from incidents.selectors import json_whole_number
from tests.api.conftest import openapi_schema

pytestmark = pytest.mark.django_db

LOG = (
    "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) "
    "ran for 1800000 milliseconds before timing out.\n"
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n"
)


@pytest.mark.parametrize(
    ("value", "number"),
    [(5, 5), ("5", 5), (" 5 ", 5), (5.0, 5), ("-3", -3), (True, None), (2.5, None), ("5.0", None)]
    + [("ten", None), ("\u0663", None), (None, None), ([5], None), (float("nan"), None)],
)
def test_the_one_rule(value, number):
    assert json_whole_number(value) == number


def match_ids(client, limit) -> list[str]:
    response = client.post(
        "/api/match", json.dumps({"text": LOG, "limit": limit}), content_type="application/json"
    )
    assert response.status_code == 200, response.json()
    return [hit["id"] for hit in response.json()["results"]]


def test_the_api_and_mcp_take_a_limit_sent_as_text(client, mcp):
    as_number = match_ids(client, 2)
    assert len(as_number) == 2
    assert match_ids(client, "2") == match_ids(client, 2.0) == as_number
    tool = [hit["id"] for hit in mcp.ok("match_log", text=LOG, limit="2")["hits"]]
    assert tool == [hit["id"] for hit in mcp.ok("match_log", text=LOG, limit=2)["hits"]] == as_number


@pytest.mark.parametrize(
    ("limit", "got"), [("ten", '"ten"'), (2.5, "2.5"), (True, "true"), ("\u0663", '"\u0663"')]
)
def test_both_doors_refuse_the_same_values_saying_what_would_work(client, mcp, limit, got):
    digits = " (digits 0-9 only)" if limit == "\u0663" else ""
    response = client.post(
        "/api/match", json.dumps({"text": LOG, "limit": limit}), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameter": "limit",
            "detail": f'must be a whole number from 1 to 50{digits}, such as 10 or "10" (got {got})',
        }
    ]
    assert mcp.error("match_log", text=LOG, limit=limit) == (
        f"Invalid arguments: limit: must be a whole number from 1 to 20{digits}, "
        f'such as 5 or "5" (got {got}).'
    )


def test_out_of_range_text_is_refused_as_out_of_range(client, mcp):
    response = client.post(
        "/api/match", json.dumps({"text": LOG, "limit": "80"}), content_type="application/json"
    )
    assert response.json()["errors"] == [
        {"parameter": "limit", "detail": "must be between 1 and 50 (got 80)"}
    ]
    assert (
        mcp.error("match_log", text=LOG, limit="80")
        == "Invalid arguments: limit must be between 1 and 20 (got 80)."
    )


def test_triage_reads_its_numbers_by_the_same_rule(client, mcp):
    body = {"symptoms": "NCCL watchdog timeout", "text": LOG, "scale": "512", "limit": "3"}
    response = client.post("/api/triage", json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.json()
    as_numbers = client.post(
        "/api/triage", json.dumps({**body, "scale": 512, "limit": 3}), content_type="application/json"
    ).json()
    assert response.json() == as_numbers
    assert [case["id"] for case in mcp.ok("triage", **body)["cases"]] == [
        c["id"] for c in as_numbers["cases"]
    ]
    refused = client.post(
        "/api/triage", json.dumps({**body, "scale": "lots"}), content_type="application/json"
    )
    assert refused.json()["errors"] == [
        {
            "parameter": "scale",
            "detail": 'must be a whole number from 1 to 1000000, such as 1 or "1" (got "lots")',
        }
    ]


def test_the_schema_says_a_body_number_may_be_text():
    limit = openapi_schema()["components"]["schemas"]["MatchRequest"]["properties"]["limit"]
    assert limit == {
        "anyOf": [
            {"type": "integer", "maximum": 50, "minimum": 1},
            {"type": "string", "pattern": r"^\s*(-?[0-9]+\s*)?$"},  # blank: not given
        ],
        "default": 10,
        "description": "Most cases to return.",
    }


def test_text_is_never_a_number_at_either_door(client, mcp):
    """The other way round stays refused: DRF's CharField read `"log": 0` as the text "0"
    (triage's `symptoms`, `text`, `framework`, `accelerator`) where MCP refuses it; both
    refuse it now."""
    for field in ("symptoms", "text", "framework", "accelerator"):
        body = {"symptoms": "NCCL watchdog timeout", "text": "NCCL WARN timeout", field: 0}
        response = client.post("/api/triage", json.dumps(body), content_type="application/json")
        assert response.status_code == 400
        assert response.json()["errors"] == [{"parameter": field, "detail": "must be a string (got 0)"}]
        assert mcp.error("triage", **body).startswith(f"Invalid arguments: {field}: ")
