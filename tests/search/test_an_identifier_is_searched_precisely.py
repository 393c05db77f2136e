"""An error identifier is searched as itself, however it is spelt: `xid 79`, `xid79`, `Xid:79`
find the cases that show Xid 79, and the vocabulary's generic synonyms of the symptom it
names (GPU unavailable: `GPU lost`, `GPU not found`) do not make every lost-GPU case a match."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.query import Atom, VocabTerm, build_lexicon, expand_with_vocabulary, parse_query
from tests.api.fixture_facts import has_symptom, ids_where
from tests.conftest import ids_quoting

pytestmark = pytest.mark.django_db

GPU_UNAVAILABLE = VocabTerm(
    id=1,
    facet="symptom",
    name="GPU unavailable",
    forms=("GPU unavailable", "GPU fell off the bus", "GPU lost", "Xid 79", "GPU not found"),
    weight=0.6,
)
SPELLINGS = ("xid 79", "xid79", "Xid 79", "Xid:79", "XID79", "find xid 79")


def expand(query: str):
    return expand_with_vocabulary(parse_query(query), build_lexicon([GPU_UNAVAILABLE]))


@pytest.mark.parametrize("query", ["xid 79", "xid79", "Xid:79", '"xid 79"'])
def test_every_spelling_is_one_group_of_both_forms(query):
    parsed = expand(query)
    assert [[tuple(w.lower() for w in a.words) for a in g] for g in parsed.groups] == [
        [("xid", "79"), ("xid79",)]
    ]
    # The term is named (cases tagged with it rank higher among the matches), not widened.
    assert [t.name for t in parsed.terms] == ["GPU unavailable"]


def test_the_generic_phrase_still_widens_to_the_synonyms():
    parsed = expand("gpu lost")
    assert Atom(("GPU", "unavailable")) in parsed.groups[0]
    assert Atom(("Xid", "79")) in parsed.groups[0]


def test_a_code_word_and_a_number_typed_apart_are_one_identifier_even_unknown():
    # `xid 61` names no vocabulary term; typed apart or joined it is the same search.
    assert expand("xid 61").groups == expand("xid61").groups == [[Atom(("xid", "61")), Atom(("xid61",))]]
    # A plain word before a number is not a code: `timeout 30` stays two words.
    assert expand("timeout 30").groups == [[Atom(("timeout",))], [Atom(("30",))]]


def test_xid_79_matches_exactly_the_cases_that_show_it():
    showing = sorted(ids_quoting("Xid 79"))
    assert showing == ["IL-0444", "IL-0523"]
    lost_gpu_cases = ids_where(has_symptom("GPU unavailable"))
    assert len(lost_gpu_cases) > 10  # what the synonym made a match before
    for query in SPELLINGS:
        results = search_cases(query=query, limit=20)
        assert sorted(h.case.id for h in results.hits) == showing, query
        assert results.total == 2, query
        assert results.terms == ["GPU unavailable"], query


def test_the_spellings_list_the_same_matches_in_the_same_order():
    orders = {query: [h.case.id for h in search_cases(query=query).hits] for query in SPELLINGS[:5]}
    assert len({tuple(order) for order in orders.values()}) == 1, orders
