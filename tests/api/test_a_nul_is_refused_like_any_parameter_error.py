"""A NUL in a query parameter is refused before any view reads it (`RejectNulMiddleware`),
but its 400 reads as every other parameter error: the same problem shape, its `errors`
entry with the `value` given (the NUL as `\\u0000`), rendered as DRF renders every other
problem (compact, UTF-8). A walkthrough found it pretty-printed with spaces and without
`value`, since it was the one problem built by Django's `JsonResponse`."""

from __future__ import annotations

import json

import pytest

from incidents.selectors.params import NUL_DETAIL

pytestmark = pytest.mark.django_db


def test_a_nul_is_a_parameter_error_with_its_value(client):
    response = client.get("/api/cases/", {"q": "nccl\x00timeout"})
    assert (response.status_code, response["Content-Type"]) == (400, "application/problem+json")
    assert response.content == (
        b'{"type":"about:blank","title":"Bad Request","status":400,'
        b'"detail":"q: contains a NUL character (\\\\0), which no value can hold",'
        b'"instance":"/api/cases/","errors":[{"parameter":"q",'
        b'"detail":"contains a NUL character (\\\\0), which no value can hold",'
        b'"value":"nccl\\u0000timeout"}]}'
    )
    assert response.json()["errors"] == [{"parameter": "q", "detail": NUL_DETAIL, "value": "nccl\x00timeout"}]


def test_it_is_rendered_as_the_other_parameter_errors_are(client):
    nul = client.get("/api/cases/", {"topic": "gpu\x00", "page_size": "500"})
    other = client.get("/api/cases/", {"page_size": "500"})
    for response in (nul, other):
        body = response.json()
        # Compact as DRF renders it: the body is its own compact, non-ASCII-as-is dump.
        assert response.content == json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        assert set(body) == {"type", "title", "status", "detail", "instance", "errors"}
        assert all(set(error) == {"parameter", "detail", "value"} for error in body["errors"])
    assert nul.json()["errors"] == [{"parameter": "topic", "detail": NUL_DETAIL, "value": "gpu\x00"}]


def test_other_problems_built_outside_drf_read_alike(client):
    response = client.get("/api/no-such-thing/é")
    assert response.status_code == 404
    assert response.content == json.dumps(response.json(), separators=(",", ":"), ensure_ascii=False).encode()
