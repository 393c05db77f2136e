"""A search naming an id merged into another case says so and lists the case it was merged
into, at every door (MCP search_incidents, the API's `notes` and results, the search page),
as its page and GET /api/cases/IL-0431 redirect to that case. It said "No published case has
the id IL-0431; the closest ids: ..." as for an id that never existed."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import search_cases
from incidents.selectors import CaseFilters
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db(transaction=True)

NOTE = (
    "Case IL-0431 was merged into IL-0428, listed in its place (its page, GET /api/cases/IL-0428, "
    "get_incident)."
)


def merge_0431_into_0428() -> None:
    Case.objects.filter(id="IL-0431").update(status=Case.Status.MERGED, merged_into_id="IL-0428")


def test_a_search_for_a_merged_id_lists_the_kept_case_at_every_door(transactional_cases, client):
    merge_0431_into_0428()
    tool = InMemoryMcp().ok("search_incidents", query="IL-0431")
    assert (tool["total"], [hit["id"] for hit in tool["hits"]]) == (1, ["IL-0428"])
    assert (tool["hits"][0]["confidence"], tool["notes"]) == ("strong", [NOTE])
    api = client.get("/api/cases/", {"q": "il0431"}).json()
    assert (api["count"], [hit["id"] for hit in api["results"]], api["notes"]) == (1, ["IL-0428"], [NOTE])
    page = client.get("/cases/", {"q": "IL-0431"}).content.decode()
    assert NOTE in page and 'href="/cases/IL-0428"' in page
    assert "No published case" not in page
    # Where the id leads: the kept case, as the search said.
    assert client.get("/api/cases/IL-0431").headers["Location"].endswith("/api/cases/IL-0428")


def test_the_kept_case_named_too_is_listed_once_and_said_named(transactional_cases):
    merge_0431_into_0428()
    results = search_cases(query="IL-0431 IL-0428")
    assert [hit.case.id for hit in results.hits] == ["IL-0428"]
    assert results.notes == ["The query names case IL-0428 by id: a strong match, whatever the words.", NOTE]


def test_filters_leaving_the_kept_case_out_say_so(transactional_cases):
    merge_0431_into_0428()
    results = search_cases(query="IL-0431", filters=CaseFilters(include={"topic": ("gpu-errors",)}))
    assert (results.total, results.hits) == (0, [])
    assert results.notes == ["Case IL-0431 was merged into IL-0428, but the filters leave it out."]


def test_a_kept_case_retracted_since_is_said_retracted(transactional_cases):
    merge_0431_into_0428()
    Case.objects.filter(id="IL-0428").update(status=Case.Status.RETRACTED, retraction_reason="Withdrawn")
    results = search_cases(query="IL-0431")
    assert (results.total, results.hits) == (0, [])
    assert results.notes == [
        "Case IL-0431 was merged into IL-0428. Case IL-0428 was retracted: Withdrawn. It is left out "
        "of search; it still resolves by id (its page, GET /api/cases/IL-0428, get_incident)."
    ]


def test_similar_incidents_for_a_merged_id_says_whose_cases_these_are(transactional_cases):
    # It answered IL-0428's similar cases without a word (get_incident gives a notice).
    merge_0431_into_0428()
    tool = InMemoryMcp().ok("similar_incidents", id="IL-0431", limit=3)
    assert tool["id"] == "IL-0428"
    assert tool["notes"] == [
        "IL-0431 was merged into IL-0428 as a duplicate; these are IL-0428's similar cases."
    ]
    assert InMemoryMcp().ok("similar_incidents", id="IL-0428", limit=3)["notes"] == []
