"""`POST /api/match` refuses a log of blanks as it refuses an empty one, as the `/match/` page
and MCP `match_log` do (a new user's walkthrough: spaces answered 200 with no case while the
page said "Paste some log lines first"), in the same words whether the log came as JSON or as
a `text/plain` body; and `?limit=` beside a JSON body is its limit (a 400 when the body gives another)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

BLANKS = "must not be empty (it holds only spaces)"


def errors(response) -> list[dict]:
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    return response.json()["errors"]


@pytest.mark.parametrize("log", ["  ", " \n\t \n"])
def test_a_log_of_blanks_is_refused_as_json_and_as_plain_text(client, log):
    as_json = client.post("/api/match", {"text": log}, content_type="application/json")
    plain = client.post("/api/match", data=log.encode(), content_type="text/plain")
    assert errors(as_json) == errors(plain) == [{"parameter": "text", "detail": BLANKS}]


def test_an_empty_plain_body_is_told_what_an_empty_json_text_is(client):
    # It was "text: is required", naming a field a plain body never has.
    as_json = client.post("/api/match", {"text": ""}, content_type="application/json")
    # (The test client drops the Content-Type of an empty body; curl sends it.)
    plain_headers = {"Content-Type": "text/plain", "Content-Length": "0"}
    plain = client.generic("POST", "/api/match", b"", headers=plain_headers)
    assert errors(as_json) == errors(plain) == [{"parameter": "text", "detail": "must not be empty"}]


def test_a_query_limit_beside_a_json_body_is_its_limit(client):
    # It was a 400, though the README's text/plain example gives `?limit=`: a script switching
    # to JSON kept its URL and tripped.
    log = "NCCL WARN NET/IB : Got completion from peer with error 12\nNVRM: Xid 79"
    by_query = client.post("/api/match?limit=1", {"text": log}, content_type="application/json")
    in_body = client.post("/api/match", {"text": log, "limit": 1}, content_type="application/json")
    assert by_query.status_code == in_body.status_code == 200
    assert by_query.json() == in_body.json() and len(in_body.json()["results"]) == 1
    # Both, the same number (5 and "5" are): read once.
    same = client.post("/api/match?limit=1", {"text": log, "limit": "1"}, content_type="application/json")
    assert same.json() == in_body.json()
    # Both, different numbers: a 400 quoting both.
    response = client.post("/api/match?limit=5", {"text": log, "limit": 3}, content_type="application/json")
    assert response.status_code == 400
    assert errors(response) == [
        {
            "parameter": "limit",
            "detail": "given in the query string (5) and in the JSON body (3); give it once",
            "value": "5",
        }
    ]
    bad = client.post("/api/match?limit=80", {"text": log}, content_type="application/json")
    assert errors(bad) == [{"parameter": "limit", "detail": "must be between 1 and 50 (got 80)"}]
    other = client.post("/api/match?top=5", {"text": "NCCL timeout"}, content_type="application/json")
    assert errors(other) == [{"parameter": "top", "detail": "unknown parameter; this endpoint accepts limit"}]
