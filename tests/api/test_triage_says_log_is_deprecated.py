"""`POST /api/triage` still reads `log`, the former name of `text`, for one release: an answer
to a body sending it says so, in a `Deprecation` header (RFC 9745) and a note to send `text`,
and the schema documents both. It read `log` without a word."""

from __future__ import annotations

import pytest

from api.views.triage import LOG_DEPRECATED_NOTE, LOG_DEPRECATED_SINCE

pytestmark = pytest.mark.django_db

NOTE = "`log` is the former name of `text`, read for one release more: send the log lines as `text`."


def post(client, body: dict):
    return client.post("/api/triage", body, content_type="application/json")


def test_a_body_sending_log_is_answered_with_a_deprecation_header_and_note(client):
    response = post(client, {"symptoms": "nccl hang", "log": "NCCL WARN Timeout"})
    assert response.status_code == 200
    # RFC 9745: a structured-field date, `@` and the Unix time `log` was deprecated at.
    assert response.headers["Deprecation"] == LOG_DEPRECATED_SINCE == "@1796637164"
    assert response.json()["notes"][-1] == LOG_DEPRECATED_NOTE == NOTE


def test_a_body_sending_text_has_neither(client):
    response = post(client, {"symptoms": "nccl hang", "text": "NCCL WARN Timeout"})
    assert response.status_code == 200
    assert "Deprecation" not in response.headers
    assert NOTE not in response.json()["notes"]


def test_the_schema_documents_the_deprecation(client):
    schema = client.get("/api/schema/").json()
    operation = schema["paths"]["/api/triage"]["post"]
    assert operation["responses"]["200"]["headers"]["Deprecation"]["description"].startswith(
        "`@1796637164` (RFC 9745"
    )
    assert NOTE in operation["description"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert schema["components"]["schemas"][body]["properties"]["log"]["deprecated"] is True
