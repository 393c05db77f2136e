"""Security headers on every page (issue 12 point 3): a Content-Security-Policy without
inline scripts, nosniff, a referrer policy, frame protection; secure cookies and HSTS
when the site is served over TLS."""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.test import override_settings

from incidentlib.security import HSTS_SECONDS, tls_settings

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/cases/?q=nccl",
    "/cases/IL-0428",
    "/topics/",
    "/topics/interconnect",
    "/vocab/",
    "/vocab/symptom/nccl-timeout",
    "/stats",
    "/match/",
    "/cases/IL-9999",  # the 404 page
    "/api/cases/IL-0428",
    "/api/docs/",
]


def policy(response) -> dict[str, list[str]]:
    directives = {}
    for part in response["Content-Security-Policy"].split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


@pytest.mark.parametrize("url", PAGES)
def test_every_answer_carries_the_security_headers(client, url):
    response = client.get(url)
    assert response.status_code in (200, 404)
    csp = policy(response)
    assert csp["default-src"] == ["'self'"]
    assert csp["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval'
    assert csp["object-src"] == ["'none'"] and csp["base-uri"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert response["X-Frame-Options"] == "DENY"


def test_site_pages_allow_no_inline_style_either(client):
    for url in PAGES[:10]:
        assert policy(client.get(url))["style-src"] == ["'self'"], url


class _InlineCode(HTMLParser):
    """Collects what a script-src 'self' policy would block: inline scripts, event-handler
    attributes, javascript: URLs; and style attributes, which style-src 'self' blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "script":
            self._in_script = "src" not in values
            if self._in_script:
                self.found.append("inline <script>")
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"<{tag} {name}=...>")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value}>")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False


@pytest.mark.parametrize("url", PAGES[:10])
def test_pages_hold_no_code_the_policy_would_block(client, url):
    parser = _InlineCode()
    parser.feed(client.get(url).content.decode())
    assert parser.found == []


def test_the_api_docs_load_their_start_up_script_as_a_file(client):
    page = client.get("/api/docs/").content.decode()
    parser = _InlineCode()
    parser.feed(page)
    assert parser.found == []
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()


def test_plain_http_gets_no_hsts_and_no_redirect_by_default(client):
    response = client.get("/", secure=True)
    assert response.status_code == 200
    assert not response.has_header("Strict-Transport-Security")
    assert settings.SESSION_COOKIE_SECURE is False


@override_settings(**tls_settings(True))
def test_over_tls_the_site_sends_hsts_and_redirects_plain_http(client):
    response = client.get("/stats", secure=True)
    assert response.status_code == 200
    assert response["Strict-Transport-Security"] == f"max-age={HSTS_SECONDS}; includeSubDomains; preload"
    plain = client.get("/stats")
    # 308: the client repeats the same method and body (a 301 turned a POST into a GET).
    assert (plain.status_code, plain["Location"]) == (308, "https://testserver/stats")


@override_settings(**tls_settings(True, behind_proxy=True))
def test_behind_a_tls_proxy_the_forwarded_scheme_counts(client):
    response = client.get("/stats", headers={"X-Forwarded-Proto": "https"})
    assert response.status_code == 200
    assert response.has_header("Strict-Transport-Security")


def test_the_https_switch_makes_cookies_secure_and_turns_hsts_on():
    code = (
        "import django, json; django.setup(); from django.conf import settings as s;"
        "print(json.dumps([s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS,"
        " s.SECURE_SSL_REDIRECT, s.SECURE_PROXY_SSL_HEADER]))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "incidentlib.settings"}
    on = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "HTTPS": "true", "BEHIND_TLS_PROXY": "true"},
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
    )
    assert on.stdout.strip() == f'[true, true, {HSTS_SECONDS}, true, ["HTTP_X_FORWARDED_PROTO", "https"]]'
    off = subprocess.run(
        [sys.executable, "-c", code],
        env={k: v for k, v in env.items() if k not in ("HTTPS", "BEHIND_TLS_PROXY")},
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
    )
    assert off.stdout.strip() == "[false, false, 0, false, null]"
