"""SQLite and PostgreSQL put the same case first for most test queries (see ISSUE_TARGET),
compared live: this process searches its own database, and `eval/run.py --first-cases`
searches the other backend's (a throw-away database, same cases) in a child process.

The queries are the held-out test set's (eval/heldout/queries.json; the tuning set's when
it is absent), over the fixtures plus the held-out foreign cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from eval.run import agreement_queries, first_cases, import_all  # noqa: E402

# Issue 17 asks for 95%. With PostgreSQL scoring a query's word groups like bm25 (idf and
# saturation, `backends.SATURATION`) the backends agreed on 284 of the 296 held-out queries
# (96%; 287 in `make eval` of 6 December); with the whole query's ts_rank, which has no idf,
# they agreed on 279 (94%).
ISSUE_TARGET = 0.95
POSTGRES_URL = os.environ.get("EVAL_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/incidentlib")


def other_backend_env() -> dict[str, str]:
    env = dict(os.environ)
    if connection.vendor == "postgresql":
        env.pop("DATABASE_URL", None)  # the other one is SQLite
    else:
        env["DATABASE_URL"] = POSTGRES_URL
    return env


def test_both_backends_put_the_same_case_first_for_most_test_queries():
    import_all()
    queries = agreement_queries()
    assert len(queries) >= 60
    mine = first_cases(queries)
    done = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "run.py"), "--first-cases"],
        env=other_backend_env(),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    same = sum(1 for query in queries if mine[query] == theirs[query])
    message = f"{same}/{len(queries)} first cases agree (issue target {ISSUE_TARGET:.0%})"
    assert same / len(queries) >= ISSUE_TARGET, message
