"""Every parameter error reads in one style, in a query string or a JSON body: a phrase after
the parameter's name (`must be between 1 and 100`, `must not be empty`), lower case, no final
period, as `api.params` and the one list parser (`selectors.params`) word them. A walkthrough
found body fields answering "Must be between 1 and 50 (got 80)." and DRF's own "This field
may not be blank." beside them (`api.errors.parameter_wording` now words DRF's defaults)."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.django_db

QUERIES = [
    "/api/cases/?page_size=500",
    "/api/cases/?page=x",
    "/api/cases/?sort=newst",
    "/api/cases/?ordering=newest",
    "/api/cases/?year=abc",
    "/api/cases/?published_after=x",
    "/api/cases/?min_nodes=x",
    "/api/cases/IL-0428/similar?limit=500",
    "/api/changes?limit=0",
]
BODIES = [
    ("/api/match", {}),
    ("/api/match", {"text": ""}),
    ("/api/match", {"text": 5}),
    ("/api/match", {"text": "x", "limit": 80}),
    ("/api/match", {"text": "x", "limit": "five"}),
    ("/api/match", ["text"]),
    ("/api/triage", {"symptoms": ""}),
    ("/api/triage", {"symptoms": "x", "job": "gaming"}),
    ("/api/triage", {"symptoms": "x", "limit": 9}),
    ("/api/triage", {"symptoms": "x", "framework": "y" * 70}),
    ("/api/triage", {"symptoms": "x", "framework": None, "accelerator": 7}),
]


def details(client) -> list[str]:
    found = []
    for url in QUERIES:
        response = client.get(url)
        assert response.status_code == 400, url
        found += [error["detail"] for error in response.json()["errors"]]
    for url, body in BODIES:
        response = client.post(url, json.dumps(body), content_type="application/json")
        assert response.status_code == 400, (url, body)
        found += [error["detail"] for error in response.json()["errors"]]
    return found


def test_every_detail_is_a_lower_case_phrase_without_a_final_period(client):
    for detail in details(client):
        assert re.match(r"[a-z]", detail), detail
        assert not detail.endswith("."), detail
        assert not re.search(r"This field|Ensure this|Must be", detail), detail


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, {"text": "is required"}),
        ({"text": ""}, {"text": "must not be empty"}),
        ({"text": 5}, {"text": "must be a string (got 5)"}),  # what came, as every other says
        ({"text": "x", "limit": 80}, {"limit": "must be between 1 and 50 (got 80)"}),
    ],
)
def test_body_fields_are_worded_as_query_parameters(client, body, expected):
    response = client.post("/api/match", json.dumps(body), content_type="application/json")
    assert {e["parameter"]: e["detail"] for e in response.json()["errors"]} == expected
    assert response.json()["detail"] == "; ".join(f"{name}: {detail}" for name, detail in expected.items())


def test_drf_limits_and_choices_are_worded_alike(client):
    body = {"symptoms": "x", "framework": "y" * 70, "job": "gaming"}
    response = client.post("/api/triage", json.dumps(body), content_type="application/json")
    assert {e["parameter"]: e["detail"] for e in response.json()["errors"]} == {
        "framework": "must be at most 60 characters long",
        "job": 'must be one of training, inference (got "gaming")',
    }
    # As a query parameter's length is worded.
    assert client.get("/api/cases/", {"q": "x" * 501}).json()["errors"][0]["detail"] == (
        "must be at most 500 characters long; it has 501 (a log or a traceback goes to log matching:"
        " the /match/ page, POST /api/match, MCP match_log or triage's text)"
    )
