"""SQLite and PostgreSQL put the same case first for at least 90% of the benchmark queries.

`make eval` writes each backend's top hit per query to eval/results-<vendor>.json; this
test runs every benchmark query on the database under test and compares its top hits with
SQLite's recorded ones. On PostgreSQL that is the cross-backend check; on SQLite it checks
that the recorded results still describe the engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incidents.search import search_cases

pytestmark = pytest.mark.django_db

EVAL = Path(__file__).resolve().parents[2] / "eval"


def test_top_results_agree_with_sqlite_on_90_percent_of_benchmark_queries():
    queries = json.loads((EVAL / "queries.json").read_text())["queries"]
    recorded = json.loads((EVAL / "results-sqlite.json").read_text())["top1"]
    assert len(queries) >= 60
    same = 0
    for item in queries:
        hits = search_cases(query=item["q"], limit=1).hits
        same += (hits[0].case.id if hits else None) == recorded[item["q"]]
    assert same / len(queries) >= 0.9, f"{same}/{len(queries)} top hits agree"


def test_search_beats_the_bm25_baseline_in_the_recorded_figures():
    for vendor in ("sqlite", "postgresql"):
        results = json.loads((EVAL / f"results-{vendor}.json").read_text())
        assert results["search"]["mrr@10"] > results["search_baseline"]["mrr@10"]
