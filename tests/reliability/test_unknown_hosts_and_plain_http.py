"""A request for a host name the server is not configured to answer is told so (not "malformed"),
except /healthz, which answers load balancers probing by address; with HTTPS=true every path
but /healthz, /mcp included, is redirected to https:// keeping its method and body (308)."""

from __future__ import annotations

import pytest
from django.core.asgi import get_asgi_application
from django.test import override_settings
from starlette.testclient import TestClient

from incidentlib.security import tls_settings
from mcp_server.http_app import build_asgi_app

pytestmark = pytest.mark.django_db

UNKNOWN_HOST = "incidents.example.org"
HOST_DETAIL = (
    "The host name in this request is not one this server is configured to answer "
    "(its ALLOWED_HOSTS setting)."
)


def test_a_page_for_an_unknown_host_says_so(client):
    response = client.get("/cases/IL-0428", HTTP_HOST=UNKNOWN_HOST)
    assert response.status_code == 400
    page = response.content.decode()
    assert HOST_DETAIL in page
    assert "malformed" not in page


def test_an_api_request_for_an_unknown_host_is_a_problem_saying_so(client):
    response = client.get("/api/cases/IL-0428", HTTP_HOST=UNKNOWN_HOST)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json() == {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "detail": HOST_DETAIL,
        "instance": "/api/cases/IL-0428",
    }


@pytest.mark.parametrize("host", ["10.1.2.3:8000", UNKNOWN_HOST])
def test_healthz_answers_a_probe_by_any_host(client, host):
    response = client.get("/healthz", HTTP_HOST=host)
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


@override_settings(**tls_settings(True))
@pytest.mark.parametrize("method", ["get", "post"])
def test_plain_http_is_redirected_keeping_the_method(client, method):
    if method == "post":
        response = client.post("/api/match?x=1", data="{}", content_type="application/json")
    else:
        response = client.get("/api/match?x=1")
    assert response.status_code == 308
    assert response["Location"] == "https://testserver/api/match?x=1"


@override_settings(**tls_settings(True))
def test_healthz_is_not_redirected(client):
    assert client.get("/healthz").status_code == 200


@override_settings(**tls_settings(True), ALLOWED_HOSTS=["testserver"])
def test_mcp_over_plain_http_is_redirected_too():
    with TestClient(build_asgi_app(get_asgi_application()), base_url="http://testserver") as client:
        response = client.post(
            "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, follow_redirects=False
        )
        assert response.status_code == 308
        assert response.headers["location"] == "https://testserver/mcp"
        # Over TLS it is served.
        secure = client.post(
            "https://testserver/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert secure.status_code == 200
