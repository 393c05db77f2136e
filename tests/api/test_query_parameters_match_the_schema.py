"""For every operation, the query parameters the OpenAPI schema lists are exactly those its
reader accepts: both come from one declaration (`api.query`). (The schema lists them by
name; the reader names them in declaration order.)"""

from __future__ import annotations

import pytest

from .conftest import openapi_schema

pytestmark = pytest.mark.django_db

# A path parameter value that gets past each view's own checks to its query reader.
PATH_VALUES = {"case_id": "IL-0428", "slug": "interconnect", "facet": "symptom", "token": "none"}
UNDECLARED = "zz_undeclared"
ACCEPTS = "unknown parameter; this endpoint accepts "

# Operations that do not read their query string at all (and so list no query parameters):
# the authenticated writes answer 401 before anything else here, and a proposal's status is
# found by its token alone.
IGNORE_THE_QUERY = {
    ("post", "/api/cases/"),
    ("put", "/api/cases/{case_id}"),
    ("patch", "/api/cases/{case_id}"),
    ("post", "/api/cases/{case_id}/status"),
    ("post", "/api/cases/{case_id}/merge"),
    ("post", "/api/proposals/"),
    ("get", "/api/proposals/{token}"),
}


def operations() -> list[tuple[str, str]]:
    return [(method, path) for path, ops in openapi_schema()["paths"].items() for method in ops]


def documented(method: str, path: str) -> list[str]:
    operation = openapi_schema()["paths"][path][method]
    return [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]


# Operations whose query parameters come with a `text/plain` body only (a JSON body carries
# them as fields): asked with such a body.
PLAIN_BODY = {("post", "/api/match")}


def accepted(client, method: str, path: str) -> list[str]:
    """What the reader says it accepts when sent a parameter nobody declares."""
    url = path.format(**PATH_VALUES) + f"?{UNDECLARED}=1"
    if (method, path) in PLAIN_BODY:
        response = getattr(client, method)(url, data="NCCL WARN timeout", content_type="text/plain")
    else:
        response = getattr(client, method)(url, data={}, content_type="application/json")
    assert response.status_code == 400, (url, response.status_code)
    [error] = [e for e in response.json()["errors"] if e["parameter"] == UNDECLARED]
    assert error["detail"].startswith(ACCEPTS), error
    names = error["detail"].removeprefix(ACCEPTS)
    return [] if names == "no query parameters" else names.split(", ")


@pytest.mark.parametrize(("method", "path"), [op for op in operations() if op not in IGNORE_THE_QUERY])
def test_the_schema_lists_exactly_the_parameters_the_reader_accepts(client, method, path):
    assert sorted(accepted(client, method, path)) == sorted(documented(method, path))


@pytest.mark.parametrize(("method", "path"), sorted(IGNORE_THE_QUERY))
def test_an_operation_that_ignores_its_query_documents_none(method, path):
    assert documented(method, path) == []
