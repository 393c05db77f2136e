"""Vocabulary synonyms widen a query; a query naming a term favours cases tagged with it."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.query import Atom, VocabTerm, build_lexicon, expand_with_vocabulary, parse_query
from tests.api.fixture_facts import has_symptom, ids_where

pytestmark = pytest.mark.django_db

HANG = VocabTerm(
    id=1,
    facet="symptom",
    name="Training hang",
    forms=("Training hang", "hang", "stuck", "deadlock"),
    weight=0.6,
)
NCCL_TIMEOUT = VocabTerm(
    id=2, facet="symptom", name="NCCL timeout", forms=("NCCL timeout", "watchdog timeout"), weight=0.5
)
NCCL = VocabTerm(id=3, facet="component", name="NCCL", forms=("NCCL", "nccl"), weight=0.1)
OOM = VocabTerm(id=4, facet="symptom", name="Out of memory", forms=("Out of memory", "OOM"), weight=0.7)


def expand(query: str):
    return expand_with_vocabulary(parse_query(query), build_lexicon([HANG, NCCL_TIMEOUT, NCCL, OOM]))


def test_a_synonym_becomes_the_term_and_all_its_synonyms():
    parsed = expand("deadlock at eval")
    assert parsed.groups[0] == [
        Atom(("deadlock",)),
        Atom(("Training", "hang")),
        Atom(("hang",)),
        Atom(("stuck",)),
    ]
    assert parsed.literal_groups[0] == [Atom(("deadlock",))]
    assert [t.name for t in parsed.terms] == ["Training hang"]


def test_the_longest_run_of_words_wins():
    parsed = expand("nccl timeout on rank 3")
    assert [t.name for t in parsed.terms] == ["NCCL timeout"]


def test_inflected_words_and_stop_words_inside_a_term_are_found():
    assert [t.name for t in expand("ranks hanging").terms] == ["Training hang"]
    assert [t.name for t in expand("out of memory on resume").terms] == ["Out of memory"]


def test_a_common_term_among_other_words_is_recognised_but_does_not_widen():
    parsed = expand("nccl hang")
    assert [t.name for t in parsed.terms] == ["NCCL", "Training hang"]
    assert parsed.groups[0] == [Atom(("nccl",))]


def test_a_query_that_only_names_a_common_term_widens_to_its_forms():
    # A whole query `job crash` asks for the term, however many cases carry it.
    common = VocabTerm(
        id=5,
        facet="symptom",
        name="Training job failure",
        forms=("Training job failure", "job crash"),
        weight=0.3,
    )
    parsed = expand_with_vocabulary(parse_query("job crash"), build_lexicon([common, NCCL]))
    assert parsed.groups == [[Atom(("job", "crash")), Atom(("Training", "job", "failure"))]]


def test_a_symptom_synonym_finds_the_cases_tagged_with_the_symptom():
    tagged = set(ids_where(has_symptom("Training job failure")))
    assert len(tagged) > 20  # a common symptom: its synonyms alone used not to widen
    for query in ("job crash", "job died", "Training job failure"):
        results = search_cases(query=query, limit=100)
        found = {h.case.id for h in results.hits}
        assert tagged <= found, (query, sorted(tagged - found))
        assert results.total == len(found)


def test_deadlock_finds_hang_cases_that_never_say_deadlock():
    ids = [h.case.id for h in search_cases(query="deadlock", limit=50).hits]
    # IL-0451 is tagged Training hang and says "hung", never "deadlock".
    assert "IL-0451" in ids
    assert search_cases(query="deadlock").terms == ["Training hang"]


def test_watchdog_timeout_finds_nccl_timeout_cases():
    # "watchdog timeout" is a synonym of the NCCL timeout tag: every case carrying it is found.
    tagged = set(ids_where(has_symptom("NCCL timeout")))
    ids = {h.case.id for h in search_cases(query="watchdog timeout", limit=100).hits}
    assert len(tagged) >= 5
    assert tagged <= ids


def test_named_term_is_reported_on_the_hits_that_carry_it():
    results = search_cases(query="stuck", limit=100)
    assert results.total == len(results.hits)  # one page holds every match
    found = {h.case.id for h in results.hits}
    carrying = {h.case.id for h in results.hits if h.matched_terms == ("Training hang",)}
    # Exactly the hits tagged Training hang report it (`stuck` is one of its synonyms).
    assert carrying == found & set(ids_where(has_symptom("Training hang")))
    assert {"IL-0431", "IL-0433", "IL-0451"} <= carrying
    assert all(h.matched_terms in ((), ("Training hang",)) for h in results.hits)


def test_cases_tagged_with_a_named_term_rank_above_those_merely_mentioning_it():
    hits = search_cases(query="link flapping", limit=10).hits
    tagged = [h.case.id for h in hits if "Link flapping" in h.matched_terms]
    assert {h.case.id for h in hits[:3]} <= set(tagged)
