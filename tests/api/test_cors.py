"""CORS: a script on another origin can read the API; HTML pages are not opened up."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

ORIGIN = {"Origin": "https://dashboard.example.org"}


def test_a_get_from_another_origin_is_readable_with_its_validators(client):
    response = client.get("/api/cases/IL-0428", headers=ORIGIN)
    assert response["Access-Control-Allow-Origin"] == "*"
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "last-modified", "retry-after", "link"} <= exposed
    assert not response.has_header("Access-Control-Allow-Credentials")


def test_errors_are_readable_across_origins_too(client):
    response = client.get("/api/cases/?nope=1", headers=ORIGIN)
    assert (response.status_code, response["Access-Control-Allow-Origin"]) == (400, "*")


def test_a_preflight_allows_get_and_json_posts(client):
    response = client.options(
        "/api/match",
        headers={
            **ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    methods = {m.strip() for m in response["Access-Control-Allow-Methods"].split(",")}
    assert {"GET", "HEAD", "POST"} <= methods and "DELETE" not in methods
    assert "content-type" in response["Access-Control-Allow-Headers"]
    conditional = client.options(
        "/api/cases/",
        headers={
            **ORIGIN,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match",
        },
    )
    assert "if-none-match" in conditional["Access-Control-Allow-Headers"]


def test_html_pages_get_no_cors_headers(client):
    response = client.get("/cases/IL-0428", headers=ORIGIN)
    assert response.status_code == 200
    assert not response.has_header("Access-Control-Allow-Origin")
