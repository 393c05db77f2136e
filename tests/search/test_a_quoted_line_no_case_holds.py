"""A quoted error line that no case holds word for word is searched by its words, and a note
says so; a quoted phrase some case holds stays exact."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.engine import PHRASE_LOOSENED
from incidents.search.query import without_phrase_quotes
from tests.conftest import ids_quoting

pytestmark = pytest.mark.django_db

PASTED = '"CUDA error: an illegal memory access was encountered"'


@pytest.mark.parametrize(
    ("typed", "loosened"),
    [
        (PASTED, "CUDA error: an illegal memory access was encountered"),
        ('xid "fallen off the bus" -"fabric manager"', 'xid fallen off the bus -"fabric manager"'),
        ('"nccl timeout" NOT "rank 0"', 'nccl timeout NOT "rank 0"'),
        ('"unclosed phrase', "unclosed phrase"),
        ('"watchdog" nccl', None),  # one quoted word: nothing to loosen
        ("nccl timeout", None),
        ('-"nccl timeout"', None),
    ],
)
def test_only_the_searched_phrases_lose_their_quotes(typed, loosened):
    assert without_phrase_quotes(typed) == loosened


def test_a_pasted_line_no_case_holds_finds_the_cases_with_its_words():
    assert ids_quoting("an illegal memory access was encountered") == []
    results = search_cases(query=PASTED)
    assert results.notes[0] == PHRASE_LOOSENED
    words = search_cases(query=PASTED.strip('"'))
    assert results.total == words.total > 0
    assert [h.case.id for h in results.hits] == [h.case.id for h in words.hits]
    # Among them a case that reports this very CUDA error.
    assert set(ids_quoting("illegal memory access")) & {h.case.id for h in results.hits}


def test_a_phrase_some_case_holds_stays_exact():
    results = search_cases(query='"watchdog caught collective operation timeout"')
    holding = set(ids_quoting("watchdog caught collective operation timeout"))
    assert holding
    assert PHRASE_LOOSENED not in results.notes
    assert {h.case.id for h in results.hits} <= holding | {h.case.id for h in results.hits if h.matched_terms}


def test_the_api_says_the_phrase_was_loosened(client):
    body = client.get("/api/cases/", {"q": PASTED}).json()
    assert body["notes"][0] == PHRASE_LOOSENED
    assert body["count"] == search_cases(query=PASTED.strip('"')).total > 0
