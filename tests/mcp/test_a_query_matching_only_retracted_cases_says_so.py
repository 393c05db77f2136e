"""A query whose only matches are retracted cases says so at every door (MCP search_incidents,
the API's `notes`, the search page), naming them with their reasons: it said "Nothing
matched" (MCP) or "No case uses these words" (the page), and an engineer could not tell
that the library knew the failure and withdrew the case."""

from __future__ import annotations

import pytest

from incidents import store_cache
from incidents.models import Case
from incidents.search import search_cases
from incidents.selectors import CaseFilters
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db(transaction=True)

REASON = "The postmortem was withdrawn by its authors."
# `normformer` is in IL-0430 alone.
NOTE = (
    "The only case matching this query is retracted: IL-0430 (The postmortem was withdrawn by its "
    "authors). It is left out of search; it still resolves by id (its page, GET /api/cases/IL-0430, "
    "get_incident)."
)
PARTIAL = "No published case matches this query well: the closest cases are listed as partial matches."


def retract(*case_ids: str, reason: str = REASON) -> None:
    Case.objects.filter(id__in=case_ids).update(status=Case.Status.RETRACTED, retraction_reason=reason)
    store_cache.changed(list(case_ids))


def test_only_retracted_matches_are_named_with_their_reason_at_every_door(transactional_cases, client):
    retract("IL-0430")
    tool = InMemoryMcp().ok("search_incidents", query="normformer")
    assert (tool["total"], tool["hits"]) == (0, [])
    assert tool["notes"] == [NOTE, PARTIAL]
    assert not any(note.startswith("Nothing matched") for note in tool["notes"])
    api = client.get("/api/cases/", {"q": "normformer"}).json()
    assert (api["count"], api["results"], api["notes"]) == (0, [], [NOTE, PARTIAL])
    page = client.get("/cases/", {"q": "normformer"}).content.decode()
    assert (
        'retracted cases match “normformer”; each page says why it was withdrawn: <a href="/cases/IL-0430">'
        in page
    )
    # Said once, in the page's words with links: not again as the notes the API and MCP give
    # (with their "GET /api/cases/..., get_incident"), nor "No case uses these words".
    assert page.count("No case matches “normformer” well.") == 1
    assert NOTE not in page and PARTIAL not in page and "get_incident" not in page
    assert "No case uses these words" not in page


def test_filters_apply_to_the_retracted_cases_too(transactional_cases):
    retract("IL-0430")
    kept = search_cases(query="normformer", filters=CaseFilters(include={"topic": ("training-instability",)}))
    assert kept.retracted_matches == ("IL-0430",)
    assert kept.notes[0].startswith(
        "The only case matching this query with these filters is retracted: IL-0430"
    )
    left_out = search_cases(query="normformer", filters=CaseFilters(include={"topic": ("gpu-errors",)}))
    assert left_out.retracted_matches == ()


def test_several_are_named_and_a_missing_reason_said_missing(transactional_cases):
    # `precondition` is in these two alone.
    retract("IL-0430", "IL-0492", reason="")
    results = search_cases(query="precondition")
    assert (results.total, sorted(results.retracted_matches)) == (0, ["IL-0430", "IL-0492"])
    first, second = results.retracted_matches
    assert results.notes[0] == (
        f"The only cases matching this query are retracted: {first} (no reason given); {second} (no "
        "reason given). They are left out of search; each still resolves by id (its page, "
        "GET /api/cases/<id>, get_incident)."
    )


def test_a_word_no_case_holds_is_still_nothing(transactional_cases):
    retract("IL-0430")
    results = search_cases(query="xyzzy plugh")
    assert (results.retracted_matches, results.notes) == ((), ["No case matches this query."])


def test_a_published_match_hides_nothing_and_says_nothing_of_retracted_cases(transactional_cases):
    retract("IL-0430")
    results = search_cases(query="exploding eigenvalues trajectory")
    assert results.total >= 1 and "IL-0430" not in [hit.case.id for hit in results.hits]
    assert (results.retracted_matches, results.notes) == ((), [])
