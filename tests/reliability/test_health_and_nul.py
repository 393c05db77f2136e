"""/healthz, NUL bytes in paths and parameters, and a database that stops answering."""

from __future__ import annotations

import io
import json
import logging

import pytest
from django.db import OperationalError
from django.test import override_settings

pytestmark = pytest.mark.django_db


def test_healthz_answers_ok_from_the_database(client, django_assert_num_queries):
    # SELECT 1 on the primary; on PostgreSQL the cache's round trip too, in its table there
    # (the set: a count for culling, a look-up, an insert, in a savepoint of the test's
    # transaction, so two statements more; then the get): 1 + 5 + 1. On SQLite the cache has
    # a file of its own (the `cache` alias), not counted here.
    from incidentlib.db_router import cache_alias

    with django_assert_num_queries(1 if cache_alias() != "default" else 7):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "databases": {"default": "ok"}, "cache": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_healthz_is_503_when_the_database_fails(client, monkeypatch):
    from django.db.backends.utils import CursorWrapper

    def refuse(self, sql, params=None):
        raise OperationalError("connection refused")

    monkeypatch.setattr(CursorWrapper, "execute", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["databases"] == {"default": "OperationalError"}
    assert response.json()["status"] == "unavailable"
    assert response["Retry-After"] == "5"


@pytest.mark.parametrize(
    "query",
    ["symptom=%00", "exclude_symptom=nccl%00timeout", "q=nccl%00", "topic=training&organization=%00Meta"],
)
def test_a_nul_in_an_html_filter_is_a_400_naming_the_parameter(client, query):
    response = client.get(f"/cases/?{query}")
    assert response.status_code == 400
    name = query.split("%00")[0].rsplit("&", 1)[-1].split("=")[0]
    assert f"The parameter “{name}” contains a NUL character" in response.content.decode()
    assert "<html" in response.content.decode()


@pytest.mark.parametrize("path", ["/api/cases/", "/api/cases/IL-0428/similar", "/api/vocab/symptom"])
def test_a_nul_in_an_api_parameter_is_a_problem_document(client, path):
    response = client.get(path, {"symptom": "nccl\x00timeout"})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["errors"] == [
        {
            "parameter": "symptom",
            "detail": "contains a NUL character (\\0), which no value can hold",
            "value": "nccl\x00timeout",
        }
    ]


@pytest.mark.parametrize("path", ["/cases/IL-0428%00", "/api/cases/IL-0428%00", "/topics/training%00"])
def test_a_nul_in_the_path_is_a_404(client, path):
    response = client.get(path)
    assert response.status_code == 404


def test_a_database_error_mid_request_is_a_503_with_a_clear_body(client, monkeypatch):
    from incidents import selectors

    def broken(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(selectors, "case_stats", broken)
    monkeypatch.setattr("incidents.views.stats.case_stats", broken, raising=False)
    html = client.get("/stats")
    assert html.status_code == 503
    assert html["Retry-After"] == "5"
    assert "The case database is not answering right now" in html.content.decode()


def test_an_api_database_error_is_a_503_problem(client, monkeypatch):
    from api.views import catalog

    def broken(*args, **kwargs):
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(catalog, "case_stats", broken, raising=False)
    monkeypatch.setattr("incidents.selectors.case_stats", broken)
    response = client.get("/api/stats")
    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["detail"] == (
        "The case database is not answering right now. Try again in a few seconds."
    )


@override_settings(ALLOWED_HOSTS=["kb.example.org"])
def test_a_foreign_host_is_logged_as_one_short_line(client):
    handler = logging.getLogger("django.security.DisallowedHost").handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    captured = io.StringIO()
    previous = handler.setStream(captured)
    try:
        response = client.get("/cases/", HTTP_HOST="evil.example.com")
    finally:
        handler.setStream(previous)
    assert response.status_code == 400
    logged = captured.getvalue().strip().splitlines()
    assert len(logged) == 1, logged
    record = json.loads(logged[0])
    assert record["level"] == "ERROR" and record["logger"] == "django.security.DisallowedHost"
    assert "evil.example.com" in record["message"]
    assert "exc_info" not in record and "Traceback" not in logged[0]


def test_a_5_mb_post_to_the_match_page_gets_the_sites_page_saying_the_limit(client):
    response = client.post("/match/", {"log": "x" * 5_000_000})
    assert response.status_code == 413
    page = response.content.decode()
    assert '<header class="site">' in page
    assert "The request body is larger than 2.6 MB, the most this site accepts." in page
    assert "the 1 MB around the failure are enough" in page


def test_a_5_mb_api_body_is_a_413_problem(client):
    response = client.post("/api/match", {"text": "x" * 5_000_000}, content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/problem+json"


def test_a_nul_in_a_pasted_log_is_not_echoed_into_the_page(client):
    response = client.post("/match/", {"log": "Xid 79\x00 GPU has fallen off the bus"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "\x00" not in page
    assert "Xid 79\ufffd GPU has fallen off the bus" in page  # the box keeps the log, NUL as U+FFFD
