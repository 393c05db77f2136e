"""After a confident first hit, the partial matches in its stored similar-case list rank a
little higher (`fusion.NEIGHBOUR_WEIGHT` times their similar-case score): other reports of
the failure it tells, which the first hit's mean embedding alone left just below the first
five. The list is read by the query that finds the first hit's nearest case
(`nearest_to_first.first_hit_neighbours`): no query more."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.models import Case
from incidents.search import fusion, search_cases
from incidents.search import nearest_to_first as nearest_module
from incidents.search.fusion import POSSIBLE, STRONG, WEAK, Candidate, by_likeness
from incidents.search.models import CaseNeighbour

pytestmark = pytest.mark.django_db

# Tuning query with two answers: the DDP idle-timeout case, and the checkpoint-barrier case
# told in other words, third in the first hit's stored list.
QUERY = (
    "DDP job finishes training, then sits idle for exactly 30 minutes and dies with a one-element"
    " ALLREDUCE watchdog timeout on rank 0"
)
FIRST, SECOND = "IL-0493", "IL-0451"


def listed_ids(query: str) -> list[str]:
    found = search_cases(query=query, limit=10)
    return [h.case.id for h in [*found.hits, *found.partial_hits]]


def candidate(case_id: str, p: float, confidence, lexical_rank: int) -> Candidate:
    return Candidate(case_id, p, share=0.5, semantic=0.4, lexical_rank=lexical_rank, confidence=confidence)


def test_a_partial_match_in_the_first_hits_list_passes_one_as_alike_outside_it():
    first = candidate("IL-A", 0.95, STRONG, 1)
    match = candidate("IL-B", 0.2, POSSIBLE, 2)
    outside = candidate("IL-C", 0.05, WEAK, 3)
    listed = candidate("IL-D", 0.04, WEAK, 4)
    likeness = {"IL-C": 0.80, "IL-D": 0.78}
    # log-odds(0.05) + 40 * 0.80 = 29.06 against log-odds(0.04) + 40 * 0.78 = 28.02 ...
    assert [c.case_id for c in by_likeness([first, match, outside, listed], likeness)] == [
        "IL-A",
        "IL-B",
        "IL-C",
        "IL-D",
    ]
    # ... + 8 * 0.4 = 31.22 when IL-D is in the first hit's list with a score of 0.4.
    ranked = by_likeness([first, match, outside, listed], likeness, {"IL-D": 0.4})
    assert [c.case_id for c in ranked] == ["IL-A", "IL-B", "IL-D", "IL-C"]
    # Matches, scores and labels stay as they were.
    expected = [(0.95, STRONG), (0.2, POSSIBLE), (0.04, WEAK), (0.05, WEAK)]
    assert [(c.fused, c.confidence) for c in ranked] == expected


def test_the_first_hits_list_is_read_only_after_a_confident_first_hit():
    published = Case.objects.published()
    confident = candidate("IL-0497", nearest_module.CONFIDENT_FIRST, STRONG, 1)
    stored = list(
        CaseNeighbour.objects.filter(case_id="IL-0497").order_by("rank").values_list("neighbour_id", "score")
    )
    assert list(nearest_module.first_hit_neighbours([confident], published).items()) == stored
    less_sure = candidate("IL-0497", 0.89, STRONG, 1)
    with CaptureQueriesContext(connection) as queries:
        assert nearest_module.first_hit_neighbours([less_sure], published) == {}
        assert nearest_module.first_hit_neighbours([candidate("IL-0497", 0.99, POSSIBLE, 1)], published) == {}
    assert len(queries.captured_queries) == 0
    # A filtered search reads only the allowed cases of the list.
    allowed = published.exclude(id=stored[0][0])
    assert list(nearest_module.first_hit_neighbours([confident], allowed).items()) == stored[1:]


def test_a_second_answer_in_the_first_hits_list_comes_into_the_first_five(monkeypatch):
    ids = listed_ids(QUERY)
    assert ids[0] == FIRST
    neighbours = dict(CaseNeighbour.objects.filter(case_id=FIRST).values_list("neighbour_id", "rank"))
    assert neighbours[SECOND] == 3
    assert ids.index(SECOND) + 1 == 4
    # Every partial match in the first five is one of the first hit's similar cases.
    assert all(case_id in neighbours for case_id in ids[1:5])
    monkeypatch.setattr(fusion, "NEIGHBOUR_WEIGHT", 0.0)
    without = listed_ids(QUERY)
    assert without[0] == FIRST
    # Fifth on SQLite, sixth on PostgreSQL, after a case outside the first hit's list.
    assert without.index(SECOND) + 1 == (5 if connection.vendor == "sqlite" else 6)
    assert not all(case_id in neighbours for case_id in without[1:5])


def test_it_costs_no_query_more(monkeypatch):
    with CaptureQueriesContext(connection) as with_it:
        search_cases(query=QUERY, limit=10)
    monkeypatch.setattr(fusion, "NEIGHBOUR_WEIGHT", 0.0)
    with CaptureQueriesContext(connection) as without_it:
        search_cases(query=QUERY, limit=10)
    assert len(with_it.captured_queries) == len(without_it.captured_queries)
