"""An id spelt otherwise (`IL-428`, `il0428`, `428` for IL-0428) leads to its case at every
door, each in its own way, as the README's "JSON API" says:

- a page answers 301 to the canonical URL (`/cases/IL-0428`), as does a GET of the API (the
  case, its similar cases, its history; the query kept): one URL per resource, which caches
  and links share. A client that follows redirects sees a 200 from `/api/cases/IL-0428`;
- MCP, which cannot redirect, answers with the case and its canonical `id`;
- a write (PUT, PATCH, `/status`, `/merge`) is not redirected (a client may resend it as a
  GET): a 404 naming the id meant. It was a bare "No case with id 'IL-428'."
"""

from __future__ import annotations

import pytest

from tests.editorial.conftest import api, etag_of
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "location"),
    [
        ("/cases/IL-428", "/cases/IL-0428"),
        ("/cases/il0428/history", "/cases/IL-0428/history"),
        ("/api/cases/IL-428", "/api/cases/IL-0428"),
        ("/api/cases/428?fields=title", "/api/cases/IL-0428?fields=title"),
        ("/api/cases/il-0428/similar?limit=3", "/api/cases/IL-0428/similar?limit=3"),
        ("/api/cases/IL-428/history", "/api/cases/IL-0428/history"),
    ],
)
def test_a_page_or_an_api_read_redirects_to_the_canonical_id(client, url, location):
    response = client.get(url)
    assert (response.status_code, response["Location"]) == (301, location)
    assert client.get(location).status_code == 200


def test_mcp_answers_with_the_case_and_its_canonical_id():
    mcp = InMemoryMcp()
    assert mcp.ok("get_incident", id="IL-428", fields=["id", "title"])["id"] == "IL-0428"
    assert mcp.ok("similar_incidents", id="il0428", limit=3)["id"] == "IL-0428"
    assert mcp.read("incident://IL-428").startswith("# IL-0428: ")


def test_a_write_to_another_spelling_names_the_id_meant(editor):
    client = api(editor)
    response = client.patch(
        "/api/cases/IL-428",
        {"action_items": ["Check the links"]},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
    )
    assert response.status_code == 404
    problem = response.json()
    assert problem["detail"] == "No case with id 'IL-428': the case is IL-0428; write to it by that id."
    assert problem["errors"] == [
        {
            "parameter": "case_id",
            "detail": "the id is spelt IL-0428",
            "value": "IL-428",
            "suggestions": ["IL-0428"],
        }
    ]
    # No such case at all: as before.
    assert (
        client.patch("/api/cases/IL-9998", {}, format="json").json()["detail"] == "No case with id 'IL-9998'."
    )
