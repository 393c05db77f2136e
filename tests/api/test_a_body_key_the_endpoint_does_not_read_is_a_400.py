"""A JSON body key that `POST /api/triage`, `POST /api/match` or `POST /api/proposals/` does
not read is a 400 naming it (with the closest accepted key), as an unknown query parameter is,
and as the MCP tools refuse an unknown argument: a misspelled `logs` must not answer from the
symptoms alone, nor a misspelled `caseid` queue a correction of no case."""

from __future__ import annotations

import pytest

from api.views.triage import LOG_DEPRECATED_NOTE
from incidents.proposals.models import Proposal
from tests.editorial.test_proposals import NEW as NEW_PROPOSAL

pytestmark = pytest.mark.django_db

TRIAGE_ACCEPTS = (
    "unknown field; the body accepts symptoms, text, log, job, framework, accelerator, scale, limit"
)


def test_triage_refuses_misspelled_keys_naming_each_with_the_key_meant(client):
    body = {
        "symptoms": "nccl hang",
        "logs": "Watchdog caught collective operation timeout",
        "accelerators": "H100",
    }
    response = client.post("/api/triage", body, content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"] == [
        {"parameter": "logs", "detail": TRIAGE_ACCEPTS, "suggestions": ["text"]},
        {"parameter": "accelerators", "detail": TRIAGE_ACCEPTS, "suggestions": ["accelerator"]},
    ]


def test_triage_reads_the_log_as_text_as_match_does_and_log_for_one_release(client):
    # `text`, as POST /api/match and the MCP tools name a pasted log; `log`, triage's former
    # name for it, still read (deprecated), the same answer; both, when they differ, a 400.
    by_text = client.post("/api/triage", {"text": "NCCL WARN"}, content_type="application/json")
    by_log = client.post("/api/triage", {"log": "NCCL WARN"}, content_type="application/json")
    assert by_text.status_code == by_log.status_code == 200
    # The same answer, but for the note that `log` is deprecated (test_triage_says_log_is_deprecated).
    deprecated = LOG_DEPRECATED_NOTE
    assert by_log.json() == {**by_text.json(), "notes": [*by_text.json()["notes"], deprecated]}
    same = {"text": "NCCL WARN", "log": "NCCL WARN"}
    assert client.post("/api/triage", same, content_type="application/json").json() == by_log.json()
    both = client.post("/api/triage", {"text": "NCCL WARN", "log": "Xid 79"}, content_type="application/json")
    assert both.status_code == 400
    assert both.json()["errors"] == [
        {"parameter": "log", "detail": "the former name of text: give the log lines once, as text"}
    ]


def test_triage_names_a_key_nothing_is_close_to_without_a_suggestion(client):
    body = {"symptoms": "nccl hang", "priority": "p1"}
    response = client.post("/api/triage", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "priority", "detail": TRIAGE_ACCEPTS}]


def test_match_refuses_an_unknown_json_key_and_still_reads_a_plain_body(client):
    response = client.post("/api/match", {"log": "NCCL WARN"}, content_type="application/json")
    assert response.status_code == 400
    # Triage's name for the log (and a common one) points at match's: it suggested nothing,
    # being spelt like neither `text` nor `limit` (a new user's walkthrough).
    assert response.json()["errors"] == [
        {"parameter": "log", "detail": "unknown field; the body accepts text, limit", "suggestions": ["text"]}
    ]
    plain = client.post("/api/match", data=b"NCCL WARN NET/IB : Got completion", content_type="text/plain")
    assert plain.status_code == 200


def test_the_keys_each_body_accepts_still_answer(client):
    triage = {
        "symptoms": "nccl hang",
        "log": "",
        "job": "training",
        "framework": None,
        "accelerator": "H100",
        "scale": 8,
        "limit": 3,
    }
    assert client.post("/api/triage", triage, content_type="application/json").status_code == 200
    match = {"text": "NCCL WARN NET/IB : Got completion", "limit": 3}
    assert client.post("/api/match", match, content_type="application/json").status_code == 200


PROPOSALS_ACCEPT = (
    "unknown field; the body accepts kind, title, text, source_urls, case_id, organization, "
    "published, topic, root_cause, contact"
)


def test_a_proposal_with_a_misspelled_key_is_refused_and_not_stored(client, no_rate_limits):
    body = {**NEW_PROPOSAL, "sources": NEW_PROPOSAL["source_urls"], "topics": "checkpoint-storage"}
    response = client.post("/api/proposals/", body, content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"] == [
        {"parameter": "sources", "detail": PROPOSALS_ACCEPT, "suggestions": ["source_urls"]},
        {"parameter": "topics", "detail": PROPOSALS_ACCEPT, "suggestions": ["topic"]},
    ]
    assert not Proposal.objects.exists()


def test_a_correction_with_a_misspelled_case_key_is_refused(client, no_rate_limits):
    correction = {
        "kind": "correction",
        "caseid": "IL-0428",
        "title": "The hang was in the fabric, not the NCCL version",
        "text": "The postmortem names a switch firmware fault as the cause.",
        "source_urls": ["https://example.org/postmortem"],
    }
    response = client.post("/api/proposals/", correction, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameter": "caseid", "detail": PROPOSALS_ACCEPT, "suggestions": ["case_id"]}
    ]
    assert not Proposal.objects.exists()


def test_the_html_forms_honeypot_is_no_key_of_the_api(client, no_rate_limits):
    response = client.post(
        "/api/proposals/", {**NEW_PROPOSAL, "website": ""}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "website", "detail": PROPOSALS_ACCEPT}]


def test_the_proposal_keys_are_the_schemas_and_still_answer(client, no_rate_limits):
    properties = client.get("/api/schema/?format=json").json()["paths"]["/api/proposals/"]["post"][
        "requestBody"
    ]["content"]["application/json"]["schema"]["properties"]
    assert PROPOSALS_ACCEPT.endswith(", ".join(properties))
    body = {**NEW_PROPOSAL, "root_cause": "hardware-fault", "contact": "oncall@example.org"}
    response = client.post("/api/proposals/", body, content_type="application/json")
    assert response.status_code == 201, response.json()
    assert Proposal.objects.get().title == NEW_PROPOSAL["title"]
