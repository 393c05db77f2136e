"""`/match/` POSTs count against the client address's "api-heavy" rate, with `POST /api/match`
and MCP `match_log`: over it, a 429 page saying when to retry, with Retry-After, the pasted
log still in the box."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache

from tests.conftest import set_throttle_rates

from .html import element, text_of

pytestmark = pytest.mark.django_db

LOG = "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."


@pytest.fixture
def small_limits(settings) -> None:
    set_throttle_rates(settings, {"api": "3/minute", "api-heavy": "2/minute"})
    cache.clear()


def match(client, address="10.8.0.1", log=LOG):
    return client.post("/match/", {"log": log}, REMOTE_ADDR=address)


def test_the_post_beyond_the_heavy_rate_gets_a_429_page_keeping_the_log(client, small_limits):
    assert [match(client).status_code, match(client).status_code] == [200, 200]
    response = match(client, log=LOG + "\nsecond line")
    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert 0 < wait <= 60
    html = response.content.decode()
    error = text_of(element(html, "p", id="log-error"))
    assert f"try again in {wait} second" in error and "at most 2/minute" in error
    assert f"{LOG}\nsecond line</textarea>" in html
    assert "Cases matching your log" not in html


def test_the_page_and_the_api_share_one_count(client, small_limits):
    api = client.post(
        "/api/match", data=json.dumps({"text": LOG}), content_type="application/json", REMOTE_ADDR="10.8.0.2"
    )
    assert api.status_code == 200
    assert match(client, "10.8.0.2").status_code == 200
    assert match(client, "10.8.0.2").status_code == 429
    api = client.post(
        "/api/match", data=json.dumps({"text": LOG}), content_type="application/json", REMOTE_ADDR="10.8.0.2"
    )
    assert api.status_code == 429


def test_a_different_client_address_is_not_limited(client, small_limits):
    for _ in range(2):
        match(client, "10.8.0.3")
    assert match(client, "10.8.0.3").status_code == 429
    assert match(client, "10.8.0.4").status_code == 200


def test_showing_the_form_is_not_counted(client, small_limits):
    for _ in range(3):
        assert client.get("/match/", REMOTE_ADDR="10.8.0.5").status_code == 200
    assert match(client, "10.8.0.5").status_code == 200
