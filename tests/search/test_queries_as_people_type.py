"""Queries as people type them: typos, glued codes, minus before a number, apostrophes,
blank queries, Unicode normalisation."""

from __future__ import annotations

import unicodedata

import pytest

from incidents.search import search_cases
from incidents.search.query import VocabTerm, parse_query
from incidents.search.spelling import correct
from tests.conftest import ids_quoting

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("nccl timout", "nccl timeout"),
        ("infiniban", "infiniband"),
        # One slip in a four-letter word is under difflib's cutoff (0.75): one edit away.
        ("ncll timeout", "nccl timeout"),
        ("slrum", "slurm"),
    ],
)
def test_a_misspelt_word_gets_a_did_you_mean_and_is_searched_corrected(typed, meant):
    results = search_cases(query=typed)
    assert results.suggestion == meant
    assert results.total > 0
    # Searched exactly as if the correction had been typed: the same matches, partial
    # matches, scores and labels (the semantic side reads the corrected words too).
    typed_right = search_cases(query=meant)
    assert results.total == typed_right.total
    assert results.partial_total == typed_right.partial_total

    def ranked(found):
        return [(h.case.id, h.score, h.confidence) for h in [*found.hits, *found.partial_hits]]

    assert ranked(results) == ranked(typed_right)


def test_a_word_some_case_has_is_not_corrected():
    assert search_cases(query="watchdog").suggestion is None


def test_a_code_glued_to_its_number_finds_the_case():
    first = search_cases(query="xid79").hits[0].case.id
    assert first == search_cases(query="Xid 79").hits[0].case.id
    assert first in ids_quoting("Xid 79")  # IL-0444 and IL-0523 both quote it


def test_a_minus_glued_to_a_number_is_part_of_the_term():
    parsed = parse_query("exitcode -9 -vllm")
    assert [[a.words for a in g] for g in parsed.groups] == [[("exitcode",)], [("9",)]]
    assert [a.words for a in parsed.excluded] == [("vllm",)]


def test_an_apostrophe_word_is_searched_not_dropped(import_synthetic):
    from tests.factories import synthetic_case

    parsed = parse_query("can't")
    assert parsed.groups and not all(a.is_stop_word for a in parsed.groups[0])
    import_synthetic(synthetic_case(42, title="The pinned-memory pool can't allocate past 2 GiB"))
    assert "IL-900042" in {h.case.id for h in search_cases(query="can't allocate").hits}


def test_a_whitespace_query_is_the_browse_view():
    results = search_cases(query=" \t \n ")
    assert results.browsing
    assert all(h.score is None and h.confidence is None for h in results.hits)


def test_decomposed_unicode_finds_composed_text(import_synthetic):
    from tests.factories import synthetic_case

    import_synthetic(synthetic_case(41, title="Kühlsystem der Großrechner überhitzt"))
    for form in ("NFC", "NFD"):
        query = unicodedata.normalize(form, "überhitzt")
        assert "IL-900041" in {h.case.id for h in search_cases(query=query).hits}, form


class _IndexWithoutStopWords:
    """A backend that finds no case for any word, as PostgreSQL does for stop words."""

    def atoms_found(self, atoms):
        return set()


def test_a_stop_word_is_never_corrected():
    # PostgreSQL does not index stop words, so `with` looked like a word no case has there and
    # was "corrected" to the vocabulary word `switch` (SQLite indexes it): the backends then
    # searched different queries.
    switch = VocabTerm(id=1, facet="component", name="Network switch", forms=("Network switch", "switch"))
    text = "hangs with no error"
    parsed, suggestion = correct(text, parse_query(text), [switch], _IndexWithoutStopWords())
    assert suggestion is None
    assert [[a.text() for a in g] for g in parsed.groups] == [["hangs"], ["with"], ["no"], ["error"]]
    # A misspelt word is still corrected.
    assert correct("swich", parse_query("swich"), [switch], _IndexWithoutStopWords())[1] == "switch"
    assert search_cases(query="distributed training hangs with no error").suggestion is None


def test_a_word_one_edit_from_two_vocabulary_words_is_not_guessed():
    from incidents.search.spelling import one_edit_from

    assert one_edit_from("ncll", ["nccl", "null"]) == []
    assert one_edit_from("ncll", ["nccl", "nvlink"]) == ["nccl"]
    assert one_edit_from("rcoe", ["roce"]) == ["roce"]  # two neighbours swapped
    assert one_edit_from("nccl", ["nccl"]) == []  # the word itself is no correction
