"""Partial matches are listed those most like the first hit first (`fusion.by_likeness`):
a query with several answers finds the others among the cases like its best one."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.fusion import POSSIBLE, STRONG, WEAK, Candidate, by_likeness
from incidents.search.results import Confidence


def candidate(case_id: str, p: float, confidence: Confidence, lexical_rank: int | None) -> Candidate:
    return Candidate(case_id, p, share=0.5, semantic=0.4, lexical_rank=lexical_rank, confidence=confidence)


FIRST = candidate("IL-A", 0.9, STRONG, 1)
MATCH = candidate("IL-B", 0.2, POSSIBLE, 2)
WEAK_CLOSE = candidate("IL-C", 0.10, WEAK, 3)
WEAK_ALIKE = candidate("IL-D", 0.05, WEAK, 4)


def test_a_partial_match_like_the_first_hit_moves_up_among_partial_matches():
    ranked = by_likeness([FIRST, MATCH, WEAK_CLOSE, WEAK_ALIKE], {"IL-C": 0.3, "IL-D": 0.9})
    # log-odds(0.05) + 14 * 0.9 = 9.7 against log-odds(0.10) + 14 * 0.3 = 2.0
    assert [c.case_id for c in ranked] == ["IL-A", "IL-B", "IL-D", "IL-C"]
    # Matches, scores and labels stay as they were.
    expected = [(0.9, STRONG), (0.2, POSSIBLE), (0.05, WEAK), (0.10, WEAK)]
    assert [(c.fused, c.confidence) for c in ranked] == expected


def test_nothing_moves_when_the_first_hit_is_no_match():
    weak_first = candidate("IL-E", 0.12, WEAK, 1)
    listed = [weak_first, WEAK_CLOSE, WEAK_ALIKE]
    assert by_likeness(listed, {"IL-C": 0.3, "IL-D": 0.9}) == listed


def test_equal_likeness_keeps_the_order_by_probability():
    ranked = by_likeness([FIRST, WEAK_CLOSE, WEAK_ALIKE], {"IL-C": 0.5, "IL-D": 0.5})
    assert [c.case_id for c in ranked] == ["IL-A", "IL-C", "IL-D"]


# (query, its strong first hit, a second answer that was sixth or lower before: a partial
# match sharing few of the query's words, like the first hit). Tuning queries.
SECOND_ANSWERS = [
    ("TGI shards frozen in ncclAllReduce", "IL-0464", "IL-0463"),  # no word of it; was 6th
    ("nvls.cc Cuda failure 1 'invalid argument'", "IL-0503", "IL-0486"),  # was 10th
]


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "first", "second"), SECOND_ANSWERS)
def test_a_second_answer_like_the_first_hit_is_in_the_first_five(query, first, second):
    found = search_cases(query=query, limit=5)
    listed = [h.case.id for h in [*found.hits, *found.partial_hits]][:5]
    assert listed[0] == first
    assert second in listed
    assert second in {h.case.id for h in found.partial_hits}
