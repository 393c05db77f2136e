"""POST /api/match: log text in, ranked cases with the lines that matched out."""

from __future__ import annotations

import json

import pytest

from incidents.search import match_log
from tests.mcp.conftest import InMemoryMcp
from tests.web.html import element, text_of

from .conftest import assert_matches_schema

pytestmark = pytest.mark.django_db

LOG = (
    "[2024-05-01 10:00:01] INFO step 1200 loss 2.31\n"
    "[2024-05-01 10:30:01] [Rank 3] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 milliseconds before timing out.\n"
    "[2024-05-01 10:30:02] NCCL timeout on rank 3\n"
)


def post(client, body, **extra):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post("/api/match", data=data, content_type="application/json", **extra)


def test_it_ranks_cases_and_names_the_matched_lines(client):
    response = post(client, {"text": LOG, "limit": 3})
    assert response.status_code == 200
    assert_matches_schema(response, "/api/match", "post")
    results = response.json()["results"]
    expected = match_log(LOG, limit=3)
    assert [r["id"] for r in results] == [h.case.id for h in expected]
    assert results, "an NCCL timeout log matches fixture cases"
    first = results[0]
    assert first["score"] == expected[0].score
    assert first["matched_lines"] == [
        {"line_number": line.line_number, "line": line.line, "terms": list(line.terms), "occurrences": 1}
        for line in expected[0].lines
    ]
    assert any(m["line"].endswith("NCCL timeout on rank 3") for m in first["matched_lines"])
    assert response["Cache-Control"] == "no-store"


XID_LOG = "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"


def test_each_matched_line_appears_once_with_all_its_terms_on_every_door(client):
    """The Xid line matches five terms: once in `matched_lines` with all five (it was five
    entries, one per term), as MCP's match_log and the /match/ page show it."""
    [hit] = post(client, {"text": XID_LOG, "limit": 1}).json()["results"]
    terms = ["fallen off the bus", "Xid 79", "Xid error", "GPU unavailable", "NVIDIA GPU"]
    assert hit["matched_lines"] == [
        {
            "line_number": 1,
            "line": "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
            "terms": terms,
            "occurrences": 1,
        }
    ]
    assert [(line["line_number"], line["terms"]) for line in hit["lines"]] == [(1, terms)]

    [tool_hit] = InMemoryMcp().ok("match_log", text=XID_LOG, limit=1)["hits"]
    assert tool_hit["id"] == hit["id"]
    assert tool_hit["matched_lines"] == [{"line_number": 1, "terms": terms, "occurrences": 1}]

    page = text_of(element(client.post("/match/", {"log": XID_LOG}).content.decode(), "table"))
    assert page.count("GPU has fallen off the bus") == 1
    assert ", ".join(terms) in page


def test_text_with_nothing_known_gives_no_cases(client):
    response = post(client, {"text": "all good\nnothing to see"})
    assert (response.status_code, response.json()) == (
        200,
        {
            "results": [],
            "reading": {
                "lines_read": 2,
                "lines_with_signature": 0,
                "lines_context": 0,
                "lines_ignored": 2,
                "lines_repeated": 0,
                "lines_blank": 0,
                "job_kind": None,
            },
            "error_codes": [],
        },
    )


def test_nul_bytes_and_lone_surrogates_are_tolerated(client):
    response = post(client, '{"text": "NCCL timeout\\u0000 here \\ud800 and there"}')
    assert response.status_code == 200


@pytest.mark.parametrize(
    "body, parameter, detail",
    [
        ({}, "text", "is required"),
        ({"text": ""}, "text", "must not be empty"),
        ({"text": "x", "limit": 0}, "limit", "must be between 1 and 50 (got 0)"),
        ({"text": "x", "limit": "51"}, "limit", "must be between 1 and 50 (got 51)"),
        (["text"], "body", "must be a JSON object, not an array"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field(client, body, parameter, detail):
    response = post(client, body)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"] == [{"parameter": parameter, "detail": detail}]


def test_malformed_json_is_a_400_about_the_body(client):
    response = post(client, '{"text": ')
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["parameter"] == "body"
    assert error["detail"].startswith("JSON parse error")


def test_text_over_a_million_characters_is_a_413_as_a_plain_body_is(client):
    # It was a 400 where the same log as a text/plain body is a 413 (test_match_plain_text.py).
    response = post(client, {"text": "x" * 1_000_001})
    assert response.status_code == 413
    said = "must be at most 1,000,000 characters long (got 1,000,001)"
    assert response.json() == {
        "type": "about:blank",
        "title": "Content Too Large",
        "status": 413,
        "detail": f"text: {said}",
        "instance": "/api/match",
        "errors": [{"parameter": "text", "detail": said}],
    }
    assert post(client, {"text": "x" * 1_000_000}).status_code == 200


def test_a_body_over_the_upload_limit_is_a_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post(client, {"text": "y" * 2000})
    assert response.status_code == 413
    # The length received too, as a plain body over the log's limit is told.
    assert response.json()["detail"] == "The body may hold at most 1,000 bytes; this one has 2,012."
    assert response.json()["title"] == "Content Too Large"


def test_another_media_type_is_a_415(client):
    # text/plain is the log itself (tests/api/test_match_plain_text.py); XML is not taken.
    response = client.post("/api/match", data="<log>NCCL timeout</log>", content_type="application/xml")
    assert response.status_code == 415
    assert response.json()["title"] == "Unsupported Media Type"


def test_query_parameters_other_than_limit_are_refused(client):
    body = json.dumps({"text": "x"})
    response = client.post("/api/match?top=3", data=body, content_type="application/json")
    assert response.json()["errors"] == [
        {"parameter": "top", "detail": "unknown parameter; this endpoint accepts limit"}
    ]


@pytest.mark.parametrize(
    "body, parameter, detail",
    [
        ({"text": 0}, "text", "must be a string (got 0)"),
        ({"text": ["NCCL timeout"]}, "text", 'must be a string (got ["NCCL timeout"])'),
        (
            {"text": "x", "limit": "ten"},
            "limit",
            'must be a whole number from 1 to 50, such as 10 or "10" (got "ten")',
        ),
        (
            {"text": "x", "limit": 2.5},
            "limit",
            'must be a whole number from 1 to 50, such as 10 or "10" (got 2.5)',
        ),
        (
            {"text": "x", "limit": True},
            "limit",
            'must be a whole number from 1 to 50, such as 10 or "10" (got true)',
        ),
        (
            {"text": "x", "limit": [5]},
            "limit",
            'must be a whole number from 1 to 50, such as 10 or "10" (got [5])',
        ),
    ],
)
def test_values_of_the_wrong_json_type_are_refused_not_coerced(client, body, parameter, detail):
    response = post(client, body)
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": parameter, "detail": detail}]
