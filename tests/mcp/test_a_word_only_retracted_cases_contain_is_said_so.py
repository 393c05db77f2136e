"""A word of the query no published case contains, searched without, that a retracted case
does contain is said to be in that retracted case (and why it was retracted), at every door:
"No case contains “turbomind”" was said while IL-0528, retracted, did (`withdrawn.py`)."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import search_cases
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db(transaction=True)

REASON = "Its only source was withdrawn by its author"
NOTE = (
    f"Only a retracted case contains “turbomind”: IL-0528 ({REASON}). Searched without it; the case "
    "still resolves by id (its page, GET /api/cases/IL-0528, get_incident)."
)


def test_a_word_only_a_retracted_case_holds_names_that_case_at_every_door(transactional_cases, client):
    # The premise: IL-0528 is the one case saying `turbomind`.
    assert [hit.case.id for hit in search_cases(query="turbomind", facets=False).hits] == ["IL-0528"]
    Case.objects.filter(id="IL-0528").update(status=Case.Status.RETRACTED, retraction_reason=REASON)
    query = "turbomind hangs"
    assert NOTE in search_cases(query=query, facets=False).notes
    assert NOTE in InMemoryMcp().ok("search_incidents", query=query)["notes"]
    assert NOTE in client.get("/api/cases/", {"q": query}).json()["notes"]
    page = client.get("/cases/", {"q": query}).content.decode()
    assert "Only a retracted case contains “turbomind”: IL-0528" in page
    assert "No case contains" not in page
    # Triage passes search's words on.
    assert NOTE in InMemoryMcp().ok("triage", symptoms=query)["notes"]


def test_a_word_in_no_case_at_all_is_still_said_in_no_case(transactional_cases):
    Case.objects.filter(id="IL-0528").update(status=Case.Status.RETRACTED, retraction_reason=REASON)
    notes = search_cases(query="turbomind zorbulated hangs", facets=False).notes
    assert "No case contains “zorbulated”: searched without it." in notes
    assert NOTE in notes
