"""A word in most cases still counts, a little: SQLite's bm25 scores each phrase with Lucene's
idf, ln(1 + (N - n + 0.5) / (n + 0.5)), N the rows of the index (`SqliteBackend._scored`).
FTS5's own bm25() gives a phrase in half of the rows or more the idf 1e-6: a case with such
a word in its title ranked as one with it in a footnote, and length decided."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.db import connection

from incidents.models import Case
from incidents.search.backends import get_backend
from incidents.search.planning import interpret
from incidents.search.ranking import lexical_rows
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

# `node` is in more than half of the cases (the fixtures' and the synthetic ones' random
# words); `quokka` in none but the two below.
RARE, COMMON = "quokka", "nodes"
QUIET: dict[str, Any] = {
    "summary": "Synthetic summary.",
    "symptoms": {"description": "Operators saw it.", "tags": []},
}


def _import(import_synthetic):
    """Two cases with both words, the rare one in a lesson; the one with the common word in
    its title is the longer, so that length alone ranks it second."""
    lessons = [f"Lesson {n}: keep the spare cables labelled and the racks tidy." for n in range(3)]
    titled = synthetic_case(
        0,
        title=f"{COMMON.capitalize()} lost on the night shift",
        lessons=[f"A {RARE} was near.", *lessons],
        **QUIET,
    )
    footnote = synthetic_case(
        1, title="Lost on the night shift", lessons=[f"A {RARE} was near the {COMMON}."], **QUIET
    )
    import_synthetic(titled, footnote, *(synthetic_case(n) for n in range(2, 12)))
    return titled["id"], footnote["id"]


def _rows(query: str):
    return lexical_rows(get_backend(), interpret(query), Case.objects.published(), whole=True)


def test_a_common_word_in_the_title_counts(import_synthetic):
    if connection.vendor != "sqlite":
        # There a word group's idf counts the rows matching any group, which hold the common
        # word nearly all: its idf is close to 0 and length decides (`backends._group_score`).
        pytest.skip("PostgreSQL's idf counts the matches, not the index")
    titled, footnote = _import(import_synthetic)
    assert 2 * len(_rows(COMMON)) >= Case.objects.count()  # in half of the cases or more

    rows = _rows(f"{RARE} {COMMON}")

    assert [row.case_id for row in rows[:2]] == [titled, footnote]
    assert [row.share for row in rows[:2]] == [1.0, 1.0]
    assert {row.share for row in rows[2:]} == {0.5}


def test_each_phrase_counts_with_its_idf(import_synthetic):
    """SQLite: a case's score is the sum of its phrases' parts, each the phrase's idf times
    a part that only depends on where and how often the case has it. The footnote case has
    each word once, in the same lesson: the parts' ratio is the idfs' ratio."""
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL saturates each word group's ts_rank instead (backends.SATURATION)")
    _, footnote = _import(import_synthetic)
    total = Case.objects.count()  # every case is indexed, one row each

    def idf(word: str) -> float:
        n = len(_rows(word))
        return math.log(1 + (total - n + 0.5) / (n + 0.5))

    def score(query: str) -> float:
        return next(row.score for row in _rows(query) if row.case_id == footnote)

    rare, common = score(RARE), score(COMMON)
    assert common / rare == pytest.approx(idf(COMMON) / idf(RARE), rel=1e-9)
    assert idf(COMMON) / idf(RARE) == pytest.approx(0.14, abs=0.05)
    # Both words matched (share 1, no synonyms): the sum of the parts.
    assert score(f"{RARE} {COMMON}") == pytest.approx(rare + common, rel=1e-9)
