"""A note is said once per answer: after a retraction, one query got three notes each
repeating the retraction reason and where the case still resolves (`Only a retracted case
contains “SkyPilot”: IL-0637 (...)`, the same for `exec`, then `The only case matching this
query is retracted: IL-0637 (...)`, a new user's walkthrough). The words the same retracted
cases hold are named in one note, and the note that only retracted cases match names the
cases without their reasons again. And the partial matches' "a filter lists the closest of
those it keeps" is said only when a filter is on."""

from __future__ import annotations

import pytest

from incidents import store_cache
from incidents.models import Case
from incidents.search import search_cases
from incidents.search.hydration import _once
from incidents.selectors import CaseFilters
from incidents.selectors.lookup import retracted_holding_note, retracted_matches_note
from tests.mcp.conftest import InMemoryMcp

REASON = "The postmortem was withdrawn by its authors"
HELD = (("IL-0430", REASON),)
BOTH = (
    f"Only a retracted case contains “normformer”, “hessian”: IL-0430 ({REASON}). Searched without them;"
    " the case still resolves by id (its page, GET /api/cases/IL-0430, get_incident)."
)


def test_the_words_one_retracted_case_holds_are_named_in_one_note():
    assert retracted_holding_note(["normformer", "hessian"], HELD) == BOTH
    assert retracted_holding_note(["normformer"], HELD) == BOTH.replace(", “hessian”", "").replace(
        "without them", "without it"
    )


def test_the_only_retracted_match_named_above_is_not_explained_again():
    assert retracted_matches_note(HELD, named=frozenset({"IL-0430"})) == (
        "The only case matching this query is retracted: IL-0430, named above."
    )
    # Not named above: the reason and where it resolves, as before.
    assert retracted_matches_note(HELD, named=frozenset({"IL-0999"})) == (
        f"The only case matching this query is retracted: IL-0430 ({REASON}). It is left out of"
        " search; it still resolves by id (its page, GET /api/cases/IL-0430, get_incident)."
    )


def test_notes_are_kept_in_order_once():
    assert _once(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


@pytest.mark.django_db(transaction=True)
def test_every_door_says_the_retracted_words_once(transactional_cases, client):
    # `normformer` and `hessian` are in IL-0430 alone; `loss spike` names a term others carry.
    Case.objects.filter(id="IL-0430").update(status=Case.Status.RETRACTED, retraction_reason=REASON + ".")
    store_cache.changed(["IL-0430"])
    query = "normformer hessian loss spike"
    notes = search_cases(query=query, facets=False).notes
    assert [note for note in notes if "IL-0430" in note] == [BOTH]
    assert [n for n in client.get("/api/cases/", {"q": query}).json()["notes"] if "IL-0430" in n] == [BOTH]
    assert [n for n in InMemoryMcp().ok("search_incidents", query=query)["notes"] if "IL-0430" in n] == [BOTH]


PRINTER = "the office printer is out of toner and jams on every page"


@pytest.mark.django_db
def test_the_partial_matches_mention_a_filter_only_when_one_is_on(client):
    results = search_cases(query=PRINTER, facets=False)
    assert results.partial_total > len(results.partial_hits) > 0  # the premise: some not listed
    page = client.get("/cases/", {"q": PRINTER}).content.decode()
    assert "They are not counted above. The others are not listed.</p>" in page
    assert "a filter lists the closest" not in page
    narrowed = search_cases(
        query=PRINTER, filters=CaseFilters(include={"topic": ("inference-outage",)}), facets=False
    )
    assert narrowed.partial_total > len(narrowed.partial_hits) > 0
    filtered = client.get("/cases/", {"q": PRINTER, "topic": "inference-outage"}).content.decode()
    assert "The others are not listed: a filter lists the closest of those it keeps.</p>" in filtered
