"""`find_case` / `find_topic`: whatever id or topic name a caller typed, one answer."""

from __future__ import annotations

import pytest

from incidents.selectors import find_case, find_topic
from incidents.selectors.spelling import closest_case_ids

pytestmark = pytest.mark.django_db


def test_an_exact_id_is_the_case_itself():
    lookup = find_case("IL-0428")
    assert lookup.case is not None and lookup.case.id == "IL-0428"
    assert (lookup.canonical_id, lookup.closest) == (None, [])


@pytest.mark.parametrize("spelling", ["il-0428", "IL0428", "il428", "428", "0428", " IL-0428 ", "IL 428"])
def test_other_spellings_name_the_canonical_id(spelling):
    lookup = find_case(spelling)
    assert (lookup.case, lookup.canonical_id) == (None, "IL-0428")
    followed = find_case(spelling, follow=True)
    assert followed.case.id == "IL-0428" and followed.canonical_id == "IL-0428"


@pytest.mark.parametrize(
    ("typed", "first"),
    [
        ("IL-9428", {"IL-0428"}),  # one wrong digit
        # One extra digit: dropping either 8 gives IL-0428, dropping the 2 gives IL-0488; both
        # exist and both are one digit off, and the last digit typed is the likelier extra.
        ("IL-04288", {"IL-0428"}),
        ("IL-048", {"IL-0428"}),  # one missing digit (IL-0048 does not exist)
    ],
)
def test_an_unknown_id_names_likely_typos_first(typed, first):
    lookup = find_case(typed)
    assert lookup.case is None and lookup.canonical_id is None
    assert set(lookup.closest[: len(first)]) == first


def test_closest_ids_rank_typos_before_far_numbers():
    ids = ["IL-0428", "IL-0463", "IL-0464"]
    assert closest_case_ids("IL-9428", ids)[0] == "IL-0428"
    assert closest_case_ids("IL-04281", ids)[0] == "IL-0428"
    assert closest_case_ids("IL-0464", ["IL-0463", "IL-0465", "IL-4600"]) == ["IL-0463", "IL-0465", "IL-4600"]


def test_a_topic_is_found_by_slug_name_or_synonym():
    assert find_topic("interconnect").term.slug == "interconnect"
    assert find_topic("interconnect").canonical_slug is None
    assert find_topic("Interconnect faults").canonical_slug == "interconnect"
    assert find_topic("networking").canonical_slug == "interconnect"  # a former topic
    # training and inference were topics; they are workloads now
    assert find_topic("training").term is None and find_topic("training").workload.slug == "training"


def test_an_unknown_topic_names_the_closest(django_assert_num_queries):
    with django_assert_num_queries(1):
        lookup = find_topic("interconect")
    assert lookup.term is None
    assert [t.slug for t in lookup.closest][0] == "interconnect"
    assert len(lookup.topics) >= 8
