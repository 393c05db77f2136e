"""A pasted message is read by its failure (`coordination.coordination`); `why` names a
number typed after a word where the case writes it so (`coordination.numbers_after_words`).

A new user's walkthrough: `CUDA out of memory` found IL-0452 (FSDP OOM on resume) first, but
the full PyTorch message (`... Tried to allocate 2.00 GiB. GPU 0 has a total capacity of
79.15 GiB of which 1.2 GiB is free`) did not list it in the first three, the cases holding
`allocate`, `GPU`, `capacity` and `free` ahead.
"""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.coordination import MESSAGE_GROUPS, coordination, numbers_after_words
from incidents.search.query import Atom, parse_query

pytestmark = pytest.mark.django_db

MESSAGE = (
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB"
    " of which 1.2 GiB is free"
)


def _texts(groups):
    return [[atom.text() for atom in group] for group in groups]


def test_the_groups_holding_a_signature_weigh_as_much_as_the_others():
    groups = parse_query("out-of-memory tried allocate two gibibytes gpu zero capacity").groups
    assert len(groups) == MESSAGE_GROUPS
    coordinate, literal = coordination(groups, groups, ["out of memory"])
    texts = [group[0].text() for group in coordinate]
    assert texts == [group[0].text() for group in groups] + ["out of memory"] * 6
    assert literal == coordinate


@pytest.mark.parametrize(
    "query",
    [
        # Quoted, the message is told apart from the reader's own words about it.
        '"out of memory" tried allocate two gibibytes gpu zero capacity',
        # The failure does not open the query: an account of it, not a pasted message.
        "tried allocate two gibibytes gpu zero capacity out-of-memory",
        # Short: a failure named and described.
        "out-of-memory tried allocate two gibibytes",
    ],
)
def test_a_signature_weighs_as_one_group_otherwise(query):
    groups = parse_query(query).groups
    assert coordination(groups, [], ["out of memory"])[0] == groups


def test_the_repeated_failure_groups_also_hold_the_codes_the_message_shows():
    groups = parse_query("torch.OutOfMemoryError: tried allocate two gibibytes gpu zero capacity").groups
    coordinate, literal = coordination(
        groups, groups, ["OutOfMemoryError"], codes=["cudaErrorMemoryAllocation"]
    )
    repeats = _texts(coordinate[len(groups) :])
    assert repeats == [["torch OutOfMemoryError", "cudaErrorMemoryAllocation"]] * 6
    assert literal == coordinate
    # The groups as typed are unchanged, and a code the group already spells is not added.
    assert coordinate[: len(groups)] == groups
    spelt = coordination(groups, [], ["OutOfMemoryError"], codes=["torch.OutOfMemoryError"])[0]
    assert _texts(spelt[len(groups) :]) == [["torch OutOfMemoryError"]] * 6


def test_the_message_in_a_newer_releases_spelling_lists_the_cases_carrying_its_code():
    # PyTorch 2.x prints `torch.OutOfMemoryError`, which no case writes: repeated as printed,
    # that group counted for no case, and the case quoting `allocate`, `GiB` and `free`
    # (IL-0573, unified-memory OOMs, which carries no error code) was first, IL-0452 4th
    # and weak. The three cases carrying cudaErrorMemoryAllocation are now the matches.
    message = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total"
        " capacity of 79.15 GiB of which 1.2 GiB is free. Of the allocated memory 75.3 GiB is"
        " allocated by PyTorch, and 1.1 GiB is reserved by PyTorch but unallocated."
    )
    results = search_cases(query=message)
    assert sorted(hit.case.id for hit in results.hits) == ["IL-0452", "IL-0465", "IL-0488"]
    assert "IL-0573" not in [hit.case.id for hit in results.partial_hits[:3]]


def test_a_number_alone_is_read_after_the_word_before_it_for_why():
    groups = [[Atom(("NCCL", "error")), Atom(("NCCL", "failure"))], [Atom(("12",))]]
    assert _texts(numbers_after_words(groups)) == [["NCCL error", "NCCL failure"], ["error 12", "failure 12"]]
    # First, or after a number, it stays as typed.
    assert _texts(numbers_after_words(parse_query("12 hang").groups)) == [["12"], ["hang"]]
    assert _texts(numbers_after_words(parse_query("2.18 3").groups)) == [["2 18"], ["3"]]
    # The share counts it as typed (`vendor err 129` is the case's `vendor error 129`).
    assert _texts(coordination(groups, [])[0]) == [["NCCL error", "NCCL failure"], ["12"]]


def test_the_pasted_message_lists_the_oom_case_near_the_top():
    results = search_cases(query=MESSAGE)
    listed = [hit.case.id for hit in [*results.hits, *results.partial_hits]]
    assert "IL-0452" in listed[:2]
    assert search_cases(query="CUDA out of memory").hits[0].case.id == "IL-0452"
