"""Hostile input everywhere a user can type or send it: query strings, every filter, page
numbers, ids, JSON bodies, pasted logs. Each gets a 4xx with a clear message or a harmless
result, never a 500 or a stack trace, and the database is unchanged. Runs on the backend
under test (SQLite or PostgreSQL)."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.reliability.hostile import HOSTILE_BODIES, HOSTILE_TEXT, RAW_QUERY_VALUES, store_state

pytestmark = pytest.mark.django_db

# Where a value can be placed; `{}` is replaced by the percent-encoded value.
GET_TARGETS = [
    "/cases/?q={}",
    "/cases/?symptom={}",
    "/cases/?exclude_component={}&topic=training",
    "/cases/?year={}&page={}&sort={}",
    "/cases/{}",
    "/topics/{}",
    "/vocab/symptom/{}",
    "/feeds/topics/{}.atom",
    "/api/cases/?q={}",
    "/api/cases/?organization={}&root_cause={}",
    "/api/cases/?page={}&page_size={}&ordering={}",
    "/api/cases/{}",
    "/api/cases/IL-0428/similar?limit={}",
    "/api/topics/{}",
    "/api/vocab/{}",
    "/api/changes?since={}&limit={}",
]
ALL_VALUES = [
    (kind, quote(value, safe="", errors="surrogatepass")) for kind, value in HOSTILE_TEXT
] + RAW_QUERY_VALUES


def assert_clean(response, where: str) -> None:
    status = response.status_code
    assert status < 500, f"{where}: {status}"
    body = response.content.decode("utf-8", "replace") if not response.streaming else ""
    assert "Traceback" not in body and 'File "/' not in body, where
    if response.get("Content-Type", "").startswith("text/html"):
        assert "<script>alert(1)</script>" not in body, where
    if where.startswith(("GET /api/", "POST /api/")) and status >= 400:
        assert response["Content-Type"] == "application/problem+json", where
        assert response.json()["detail"], where


@pytest.mark.parametrize("target", GET_TARGETS)
def test_every_hostile_value_in_every_parameter_is_answered_cleanly(client, target):
    before = store_state()
    for kind, encoded in ALL_VALUES:
        if len(encoded) > 100_000 and "{}" in target.split("?")[0]:
            continue  # a megabyte path segment is refused by any server before Django
        url = target.replace("{}", encoded)
        response = client.get(url)
        assert_clean(response, f"GET {target} [{kind}]")
    assert store_state() == before


@pytest.mark.parametrize("kind,body,content_type", HOSTILE_BODIES, ids=[b[0] for b in HOSTILE_BODIES])
def test_hostile_match_bodies_are_4xx_or_harmless(client, kind, body, content_type):
    before = store_state()
    response = client.generic("POST", "/api/match", body, content_type=content_type)
    assert_clean(response, f"POST /api/match [{kind}]")
    assert store_state() == before


@pytest.mark.parametrize("kind,value", HOSTILE_TEXT, ids=[k for k, _ in HOSTILE_TEXT])
def test_hostile_pasted_logs_are_answered_cleanly(client, kind, value):
    before = store_state()
    api = client.post("/api/match", {"text": value}, content_type="application/json")
    assert_clean(api, f"POST /api/match [{kind}]")
    # As a browser form sends it; a lone surrogate goes out as the bytes it would be in UTF-8.
    form = "text=" + quote(value, safe="", errors="surrogatepass")
    page = client.generic("POST", "/match/", form, content_type="application/x-www-form-urlencoded")
    assert_clean(page, f"POST /match/ [{kind}]")
    assert store_state() == before
