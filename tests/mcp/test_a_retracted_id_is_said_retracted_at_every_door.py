"""A search naming a retracted case by id says the case was retracted, and why, at every door
(MCP search_incidents, the API's `notes`, the search page), in the words of the case's page
and get_incident's notice. It said "No published case has the id IL-0480; the closest ids:
..." as for an id that never existed, while get_incident and GET /api/cases/IL-0480 answer
with the case, marked retracted."""

from __future__ import annotations

import pytest

from incidents.models import Case
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db(transaction=True)

REASON = "Duplicate of a vendor advisory that names no failure of ours"
NOTE = (
    f"Case IL-0480 was retracted: {REASON}. It is left out of search; it still resolves by id "
    "(its page, GET /api/cases/IL-0480, get_incident)."
)


def test_a_search_for_a_retracted_id_says_it_is_retracted_at_every_door(transactional_cases, client):
    Case.objects.filter(id="IL-0480").update(status=Case.Status.RETRACTED, retraction_reason=REASON)
    tool = InMemoryMcp().ok("search_incidents", query="IL-0480")
    assert (tool["total"], tool["hits"]) == (0, [])
    assert tool["notes"][0] == NOTE
    assert not any("No published case" in note for note in tool["notes"])
    api = client.get("/api/cases/", {"q": "il0480"}).json()
    assert (api["count"], api["notes"]) == (0, [NOTE])
    page = client.get("/cases/", {"q": "IL-0480"})
    assert NOTE in page.content.decode()
    # get_incident still reads it, with the same reason; trimmed to other fields, it keeps its
    # status, as GET /api/cases/IL-0480?fields=title does (that answer read as a published one's).
    trimmed = InMemoryMcp().ok("get_incident", id="IL-0480", fields=["title"])
    assert (trimmed["notice"], trimmed["status"]) == (f"Retracted: {REASON}", "retracted")
    api_trimmed = client.get("/api/cases/IL-0480?fields=title").json()
    assert (api_trimmed["status"], api_trimmed["retraction_reason"]) == ("retracted", REASON)


def test_words_beside_it_are_searched_and_a_reason_left_blank_is_not_invented(transactional_cases, client):
    Case.objects.filter(id="IL-0480").update(status=Case.Status.RETRACTED, retraction_reason="")
    api = client.get("/api/cases/", {"q": "IL-0480 fp16 divergence"}).json()
    assert api["count"] > 0 and "IL-0480" not in [hit["id"] for hit in api["results"]]
    assert api["notes"][0] == (
        "Case IL-0480 was retracted. It is left out of search; it still resolves by id "
        "(its page, GET /api/cases/IL-0480, get_incident)."
    )
