"""Queries as people type them: typos, glued codes, minus before a number, apostrophes,
blank queries, Unicode normalisation."""

from __future__ import annotations

import unicodedata

import pytest

from incidents.search import search_cases
from incidents.search.query import parse_query

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("typed", "meant"), [("nccl timout", "nccl timeout"), ("infiniban", "infiniband")])
def test_a_misspelt_word_gets_a_did_you_mean_and_is_searched_corrected(typed, meant):
    results = search_cases(query=typed)
    assert results.suggestion == meant
    assert results.total > 0
    assert results.total == search_cases(query=meant).total


def test_a_word_some_case_has_is_not_corrected():
    assert search_cases(query="watchdog").suggestion is None


def test_a_code_glued_to_its_number_finds_the_case():
    assert (
        search_cases(query="xid79").hits[0].case.id
        == search_cases(query="Xid 79").hits[0].case.id
        == "IL-0444"
    )


def test_a_minus_glued_to_a_number_is_part_of_the_term():
    parsed = parse_query("exitcode -9 -vllm")
    assert [[a.words for a in g] for g in parsed.groups] == [[("exitcode",)], [("9",)]]
    assert [a.words for a in parsed.excluded] == [("vllm",)]


def test_an_apostrophe_word_is_searched_not_dropped():
    parsed = parse_query("can't")
    assert parsed.groups and not all(a.is_stop_word for a in parsed.groups[0])
    assert search_cases(query="can't allocate").total >= 1


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
