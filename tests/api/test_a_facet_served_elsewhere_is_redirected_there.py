"""`/api/vocab/{facet}` for a facet it does not serve (walk #14), and API redirects in JSON
(walk #15).

`/api/vocab/error_code` was a 404 "No facet 'error_code'", though `error_code` is a filter of
`/api/cases/` and a facet of MCP `vocab`: it redirects to the error codes' own endpoint.
`/api/vocab/symptoms` was a 404 with no suggestion, where an unknown filter value gets the
values spelt close to it. And a 301 under /api/ (`/api/cases/il0428`) came as an empty
`text/html` body: it is JSON naming where to go.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

FACETS = "topic, symptom, root_cause, component, workload, organization, accelerator"


@pytest.mark.parametrize("facet", ["error_code", "error-codes", "codes"])
def test_the_error_code_facet_leads_to_the_codes(client, facet):
    response = client.get(f"/api/vocab/{facet}")
    assert (response.status_code, response["Location"]) == (301, "/api/codes/")
    assert response.json() == {"url": "http://testserver/api/codes/"}


def test_a_facet_spelt_otherwise_leads_to_its_spelling(client):
    response = client.get("/api/vocab/root-cause")
    assert (response.status_code, response["Location"]) == (301, "/api/vocab/root_cause")


@pytest.mark.parametrize(
    ("facet", "suggested"), [("symptoms", ["symptom"]), ("topik", ["topic"]), ("colour", None)]
)
def test_an_unknown_facet_suggests_those_spelt_close(client, facet, suggested):
    body = client.get(f"/api/vocab/{facet}").json()
    assert (body["status"], body["detail"]) == (
        404,
        f"No facet '{facet}'; facets: {FACETS} (error codes: /api/codes/).",
    )
    expected = {"parameter": "facet", "detail": "unknown facet", "value": facet}
    assert body["errors"] == [{**expected, "suggestions": suggested} if suggested else expected]


@pytest.mark.parametrize(
    ("url", "location"),
    [
        ("/api/cases/il0428", "/api/cases/IL-0428"),
        ("/api/cases/428?fields=title", "/api/cases/IL-0428?fields=title"),
        ("/api/codes/Xid%2079", "/api/codes/xid-79"),
        ("/api/topics/Interconnect", "/api/topics/interconnect"),
    ],
)
def test_an_api_redirect_is_json_naming_where_to_go(client, url, location):
    response = client.get(url)
    assert (response.status_code, response["Location"], response["Content-Type"]) == (
        301,
        location,
        "application/json",
    )
    assert response.json() == {"url": "http://testserver" + location}
