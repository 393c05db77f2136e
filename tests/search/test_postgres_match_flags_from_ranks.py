"""PostgreSQL's ranking takes a word group's match flag from its ts_rank when the group's
tsquery is lexemes joined by OR, instead of testing the vector a second time: the results
must be exactly those of testing every group, and a phrase, including a word PostgreSQL
splits into a phrase of lexemes (`2.22.3`, `1e5abc`), must still be tested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import connection

from incidents.search import backends, search_cases

pytestmark = pytest.mark.django_db

TUNING = Path(__file__).resolve().parents[2] / "eval" / "queries.json"
# Phrases, synonyms, tokens PostgreSQL splits, numbers, a minus glued to a number, a
# contraction, a word and a digit run joined: each next to plain words.
CRAFTED = [
    "nccl timeout",
    '"watchdog timeout" rank 0',
    "NCCL_IB_TIMEOUT after upgrade to 2.22.3",
    "exitcode -9 killed",
    "xid79 fell off the bus",
    "can't reach the rendezvous store",
    "1e5abc checkpoint",
    "training hangs in allreduce after we added nodes and the watchdog times out",
]


def _results(query: str) -> tuple:
    found = search_cases(query=query, limit=50)
    return (
        found.total,
        [(h.case.id, h.score, h.confidence) for h in found.hits],
        [(h.case.id, h.score) for h in found.partial_hits],
    )


def _test_every_group(monkeypatch) -> None:
    monkeypatch.setattr(backends.PostgresBackend, "_flags_from_ranks", staticmethod(lambda scored: []))


def test_flags_from_ranks_give_exactly_the_results_of_testing_every_group(monkeypatch):
    if connection.vendor != "postgresql":
        # SQLite's ranking tests each group against FTS5's own index: nothing is derived.
        assert backends.get_backend().vendor == "sqlite"
        return
    queries = CRAFTED + [item["q"] for item in json.loads(TUNING.read_text())["queries"][:40]]
    derived = {q: _results(q) for q in queries}
    _test_every_group(monkeypatch)
    tested = {q: _results(q) for q in queries}
    assert derived == tested
    assert sum(1 for q in queries if derived[q][0]) > 40  # the queries find cases


def test_a_word_read_as_a_phrase_is_not_a_match_where_it_is_not(import_synthetic, monkeypatch):
    """`1e5abc` is the phrase `'1e5' <-> 'abc'` to PostgreSQL, which ts_rank scores above 0
    in a case without either word (1e-20): taken from its rank, it made a case holding only
    `zorblax` match both words, a strong hit (0.61 against 0.18)."""
    from tests.factories import synthetic_case

    both = synthetic_case(71, summary="The zorblax daemon logged 1e5abc before it stopped.")
    one = synthetic_case(72, summary="The zorblax daemon stopped without a word.")
    import_synthetic(both, one)
    found = search_cases(query="1e5abc zorblax", limit=10)
    # The case with one of the two words is worth a look, not a case seen before.
    labelled = [(h.case.id, h.confidence) for h in found.hits]
    assert labelled == [(both["id"], "strong"), (one["id"], "possible")]
    if connection.vendor == "postgresql":
        _test_every_group(monkeypatch)
        assert _results("1e5abc zorblax") == (
            found.total,
            [(h.case.id, h.score, h.confidence) for h in found.hits],
            [(h.case.id, h.score) for h in found.partial_hits],
        )
