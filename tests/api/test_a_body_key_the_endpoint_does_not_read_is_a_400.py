"""A JSON body key that `POST /api/triage` or `POST /api/match` does not read is a 400
naming it (with the closest accepted key), as an unknown query parameter is, and as the MCP
tools refuse an unknown argument: a misspelled `logs` must not answer from the symptoms alone."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

TRIAGE_ACCEPTS = "unknown field; the body accepts symptoms, log, job, framework, accelerator, scale, limit"


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
        {"parameter": "logs", "detail": TRIAGE_ACCEPTS, "suggestions": ["log"]},
        {"parameter": "accelerators", "detail": TRIAGE_ACCEPTS, "suggestions": ["accelerator"]},
    ]


def test_triage_names_a_key_nothing_is_close_to_without_a_suggestion(client):
    body = {"symptoms": "nccl hang", "priority": "p1"}
    response = client.post("/api/triage", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "priority", "detail": TRIAGE_ACCEPTS}]


def test_match_refuses_an_unknown_json_key_and_still_reads_a_plain_body(client):
    response = client.post("/api/match", {"log": "NCCL WARN"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameter": "log", "detail": "unknown field; the body accepts text, limit"}
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
