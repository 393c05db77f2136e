"""A lone letter typed outside quotes (`a b`, `hang b`) is in nearly every case's text: it is
left out of the search like a stop word, so it neither makes matches nor changes them.
Quoted, it is searched; digits (`rank 0`, `-9`) always are."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.planning import interpret

pytestmark = pytest.mark.django_db


def ranked(query: str) -> list[str]:
    return [h.case.id for h in search_cases(query=query, limit=50).hits]


def test_only_single_letters_match_nothing_and_say_why():
    results = search_cases(query="a b")
    assert (results.hits, results.partial_hits, results.total) == ([], [], 0)
    assert results.notes == [
        "The query has only very common words or single letters (a, b), which are not searched:"
        " add a more specific word, such as an error message or a component."
    ]


@pytest.mark.parametrize(("query", "same_as"), [("hang b", "hang"), ("x NCCL timeout", "NCCL timeout")])
def test_a_letter_beside_words_changes_nothing(query, same_as):
    assert search_cases(query=query).total == search_cases(query=same_as).total
    assert ranked(query) == ranked(same_as)


def test_a_quoted_letter_is_searched():
    assert [[a.text() for a in g] for g in interpret('"b" hang', terms=[]).groups] == [["b"], ["hang"]]
    assert search_cases(query='"b" hang').total < search_cases(query="hang").total


def test_digits_are_kept():
    assert [[a.text() for a in g] for g in interpret("rank 0 hang", terms=[]).groups] == [
        ["rank"],
        ["0"],
        ["hang"],
    ]
    assert [[a.text() for a in g] for g in interpret("exitcode -9", terms=[]).groups] == [["exitcode"], ["9"]]
