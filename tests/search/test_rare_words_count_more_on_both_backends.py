"""A query's rare word counts more than a common one on SQLite (FTS5 bm25) and PostgreSQL
alike (ts_rank per word group, weighted by the group's idf: `backends.SATURATION`). With
the whole query's ts_rank, which has no idf, PostgreSQL ranked the only case with the rare
word below the shorter cases with the common one, where SQLite put it first."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search.backends import get_backend
from incidents.search.planning import interpret
from incidents.search.ranking import lexical_rows
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

RARE, COMMON = "quokka", "blorfle"


def test_the_case_with_the_rare_word_comes_first(import_synthetic):
    # Ten cases carry the common word in their title, one the rare word: each matches one
    # of the query's two words, in the same column. The rare one is the longest case, which
    # length normalisation alone would rank last.
    common = [synthetic_case(n, title=f"{COMMON.capitalize()} failure number {n}") for n in range(10)]
    longer = [f"Lesson {n}: keep the spare cables labelled and the racks tidy." for n in range(12)]
    rare = synthetic_case(10, title=f"{RARE.capitalize()} failure number 10", lessons=longer)
    import_synthetic(*common, rare)

    rows = lexical_rows(get_backend(), interpret(f"{COMMON} {RARE}"), Case.objects.published(), whole=True)

    assert rows[0].case_id == rare["id"]
    assert rows[0].share == 0.5
    assert {row.case_id for row in rows} == {rare["id"], *(c["id"] for c in common)}


def test_a_case_matching_both_words_still_comes_first(import_synthetic):
    """The case with both words leads: the idf weighting keeps coordination, and a title
    holding one word does not outweigh it (the whole query's ts_rank put those first)."""
    common = [synthetic_case(n, title=f"{COMMON.capitalize()} failure number {n}") for n in range(10)]
    rare = synthetic_case(10, lessons=[f"A {RARE} was seen near the rack."])
    both = synthetic_case(11, lessons=[f"A {RARE} chewed the {COMMON} cable."])
    import_synthetic(*common, rare, both)

    rows = lexical_rows(get_backend(), interpret(f"{COMMON} {RARE}"), Case.objects.published(), whole=True)

    assert rows[0].case_id == both["id"]
    assert rows[0].share == 1.0
    assert {row.share for row in rows[1:]} == {0.5}
