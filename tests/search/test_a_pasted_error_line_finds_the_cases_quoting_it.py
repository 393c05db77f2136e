"""Pasting one error line finds the cases that quote it, in search as in log matching.

`CUDA error: an illegal memory access was encountered` (a new user's walkthrough) listed
only IL-0631 as a match and IL-0532, which quotes `illegal memory access` too, as the 70th
partial match; with `RuntimeError: ` before it an ECC case quoting another `RuntimeError:
CUDA error` was the one strong match and both quoting cases partial ones. Three reasons,
each fixed for every query:
- `encountered` is in no case, yet counted in the share of the query's words a case
  matches, so no case could match them all (`planning.without_words`);
- `illegal memory access` is a synonym of the `CUDA error` the line also names: widened to
  that term again, any case saying `CUDA error` matched both (`query.expand_with_vocabulary`
  widens a term once);
- `RuntimeError` is printed by any Python failure (`planning.GENERIC_EXCEPTIONS`).
"""

from __future__ import annotations

import pytest

from incidents.search import read_log, search_cases
from incidents.search.planning import interpret, vocabulary, widened_without, without_words
from incidents.search.query import parse_query
from tests.conftest import ids_quoting

pytestmark = pytest.mark.django_db

LINE = "CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize("query", [LINE, f"RuntimeError: {LINE}"])
def test_the_cases_quoting_the_message_are_the_first_matches(query):
    quoting = set(ids_quoting("illegal memory access"))
    assert quoting == {"IL-0532", "IL-0631"}
    results = search_cases(query=query)
    assert {hit.case.id for hit in results.hits[:2]} == quoting
    assert "No case contains “encountered”: searched without it." in results.notes
    if query.startswith("RuntimeError"):
        assert (
            "RuntimeError is printed by too many failures to tell them apart: searched without it."
            in results.notes
        )


def test_log_matching_lists_them_too():
    listed = [hit.case.id for hit in read_log(f"RuntimeError: {LINE}\n", limit=5).hits]
    assert {"IL-0532", "IL-0631"} <= set(listed)


def test_a_term_named_twice_is_widened_once():
    parsed = interpret("CUDA error illegal memory access")
    assert [[atom.text() for atom in group] for group in parsed.groups][1] == ["illegal memory access"]
    assert "illegal memory access" in [atom.text() for atom in parsed.groups[0]]


def test_a_query_of_such_words_alone_is_kept():
    parsed = parse_query("encountered")
    assert without_words(parsed, ["encountered"]) == (parsed, [])
    # A number alone says too little to be the query: `exitcode -9` stays as typed.
    numbered = parse_query("exitcode -9")
    assert without_words(numbered, ["exitcode"]) == (numbered, [])
    kept, dropped = without_words(parse_query("RuntimeError hang"), ["runtimeerror"])
    assert ([[a.text() for a in g] for g in kept.groups], dropped) == ([["hang"]], ["RuntimeError"])


def test_words_in_no_case_stay_when_the_rest_names_no_failure():
    # Without `printer`, `toner` and `jams` (in no case) the query would match whatever says
    # `every page`: it names no vocabulary term, so it is searched as typed.
    question = parse_query("the office printer is out of toner and jams on every page")
    widened, dropped = widened_without(question, ("printer", "toner", "jams"), vocabulary().lexicon)
    assert dropped == [] and "printer" in [g[0].text() for g in widened.groups]
    line = parse_query(LINE)
    widened, dropped = widened_without(line, ("encountered",), vocabulary().lexicon)
    assert dropped == ["encountered"] and [t.name for t in widened.terms] == ["CUDA error"]
