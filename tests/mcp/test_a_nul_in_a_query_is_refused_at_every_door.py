"""A NUL in the search text is one problem, found by the one parser and reported by every
front door in the same words: the API as a 400 problem document, the page as a 400 page,
MCP as a tool error that also says what to send instead (it was silently made a space)."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from incidents.selectors import parse_search
from incidents.selectors.params import NUL_DETAIL, Choice, Problem

pytestmark = pytest.mark.django_db

DETAIL = "contains a NUL character (\\0), which no value can hold"


def test_the_parser_reports_it_with_the_text_to_send_instead():
    assert NUL_DETAIL == DETAIL
    search, problems = parse_search(QueryDict("q=nccl%00timeout"))
    assert problems == [Problem("q", DETAIL, suggestions=(Choice("nccl timeout", "nccl timeout"),))]
    _, problems = parse_search({"q": "\x00"})
    assert problems == [Problem("q", DETAIL)]  # nothing left to suggest


def test_the_api_answers_400_naming_q(client):
    response = client.get("/api/cases/", {"q": "nccl\x00timeout"})
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "q", "detail": DETAIL, "value": "nccl\x00timeout"}]


def test_the_page_answers_400_naming_q(client):
    response = client.get("/cases/", {"q": "nccl\x00timeout"})
    assert response.status_code == 400
    assert f"The parameter “q” {DETAIL}." in response.content.decode()


def test_search_incidents_is_a_tool_error_saying_what_would_work(mcp):
    assert mcp.error("search_incidents", query="nccl\x00timeout") == (
        f"query: {DETAIL}. Send instead: 'nccl timeout'."
    )
    assert mcp.error("search_incidents", query="\x00") == f"query: {DETAIL}."


def test_triage_symptoms_are_read_by_the_same_parser(mcp, client):
    assert mcp.error("triage", symptoms="hang\x00") == f"symptoms: {DETAIL}. Send instead: 'hang'."
    # POST /api/triage refuses it too, naming symptoms.
    response = client.post("/api/triage", {"symptoms": "hang\x00"}, content_type="application/json")
    assert response.status_code == 400
    assert [e["parameter"] for e in response.json()["errors"]] == ["symptoms"]
