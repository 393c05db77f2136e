"""PostgreSQL's ranking takes a word group's match flag from its ts_rank when the group is
plain words only (`backends._one_lexeme`), instead of testing the vector a second time: the
results must be exactly those of testing every group, and a phrase or a token PostgreSQL
splits into several lexemes must still be tested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import connection

from incidents.search import backends, search_cases
from incidents.search.query import Atom

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
    "training hangs in allreduce after we added nodes and the watchdog times out",
]


def test_plain_words_are_one_lexeme_and_the_rest_are_not():
    assert backends._one_lexeme(Atom(("allreduce",)))
    assert backends._one_lexeme(Atom(("xid79",)))
    assert backends._one_lexeme(Atom(("79",)))
    assert not backends._one_lexeme(Atom(("watchdog", "timeout")))  # a phrase
    assert not backends._one_lexeme(Atom(("2.22.3",)))
    assert not backends._one_lexeme(Atom(("nccl_ib_timeout",)))
    assert not backends._one_lexeme(Atom(("-9",)))
    assert not backends._one_lexeme(Atom(("größe",)))


def _results(query: str) -> tuple:
    found = search_cases(query=query, limit=50)
    return (
        found.total,
        [(h.case.id, h.score, h.confidence) for h in found.hits],
        [(h.case.id, h.score) for h in found.partial_hits],
    )


def test_flags_from_ranks_give_exactly_the_results_of_testing_every_group(monkeypatch):
    if connection.vendor != "postgresql":
        # SQLite's ranking tests each group against FTS5's own index: nothing is derived.
        assert backends.get_backend().vendor == "sqlite"
        return
    queries = CRAFTED + [item["q"] for item in json.loads(TUNING.read_text())["queries"][:40]]
    derived = {q: _results(q) for q in queries}
    monkeypatch.setattr(backends, "_one_lexeme", lambda atom: False)
    tested = {q: _results(q) for q in queries}
    assert derived == tested
    assert sum(1 for q in queries if derived[q][0]) > 40  # the queries find cases
