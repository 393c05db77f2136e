"""SQLite and PostgreSQL put the same case first for most test queries (see AGREEMENT_FLOOR),
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

# Issue 17 asks for 95%. On the 167-case library the backends' lexical rankings (FTS5 bm25,
# PostgreSQL ts_rank without IDF) part on 20 of the 302 held-out queries (93.4%): the target is
# not met (README, issue 17) and this floor keeps it from getting worse while it is worked on.
ISSUE_TARGET = 0.95
AGREEMENT_FLOOR = 0.925
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
    assert same / len(queries) >= AGREEMENT_FLOOR, message
