"""`make bench` runs end to end: a tiny run of bench/run.py in a copy of the checkout, on the
backend this test run uses (SQLite, or PostgreSQL when DATABASE_URL names it).

The CI does not run the full bench (hours at 100,000 cases), so without this a change to the
bench or to what it drives could break it unseen, as c22b02e did (every run stopped before
measuring). Nothing here is timed: the run must finish (its warm-up asks every endpoint and
stops on any answer but 2xx), get no other answer under the load generator, and write its
report and the README's table."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tooling.conftest import run_child
from tests.tooling.test_bench_report import bench_run

ROOT = Path(__file__).resolve().parents[2]
SIZE = 20
# The Redis database each backend's smoke run empties and caches in.
SMOKE_CACHE_DATABASE = {"sqlite": 14, "postgres": 12}


def copy_of_checkout(target: Path) -> Path:
    """The tracked files of this checkout, as they are in the work tree, under `target`."""
    listed = run_child("git", "ls-files", "-z").stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def smoke_database_url() -> str:
    """The bench's PostgreSQL base URL on the test run's server (`_n20` is appended)."""
    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/x").rsplit("/", 1)[0]
    return f"{server}/il_bench_smoke"


def drop_smoke_database() -> None:
    import psycopg

    with psycopg.connect(smoke_database_url().rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "il_bench_smoke_n{SIZE}" WITH (FORCE)')


@pytest.fixture
def bench_backend() -> str:
    return "postgres" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"


def test_a_tiny_bench_measures_every_endpoint_and_writes_its_report(tmp_path, bench_backend):
    if shutil.which("wrk") is None:
        pytest.fail("wrk is missing: `make test` installs it (`make loadtool`)")
    copy = copy_of_checkout(tmp_path / "checkout")
    # The developer's own BENCH_* settings (BENCH_KEEP, BENCH_REUSE...) would change the run.
    environment = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_") and k != "DATABASE_URL"}
    environment.update(
        {
            "BENCH_SIZES": str(SIZE),
            "BENCH_BACKENDS": bench_backend,
            "BENCH_SECONDS": "1",
            "BENCH_SOLO_SECONDS": "1",
            "BENCH_CONNECTIONS": "4",
            # Names of their own: a developer's bench databases (il_bench_n*) and bench
            # cache (Redis database 13) stay untouched; this run empties database 14 on
            # SQLite and 12 on PostgreSQL, so that CI's two suites, which run side by side
            # (.ci/run), never empty the cache of the other's bench server.
            "BENCH_POSTGRES_URL": smoke_database_url(),
            "BENCH_CACHE_URL": f"redis://127.0.0.1:6379/{SMOKE_CACHE_DATABASE[bench_backend]}",
        }
    )
    process = subprocess.Popen(
        [sys.executable, "bench/run.py"],
        cwd=copy,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=900)
    finally:
        # Its server and load generator too, if the run was stopped.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        if bench_backend == "postgres":
            drop_smoke_database()
    result = subprocess.CompletedProcess(process.args, process.returncode, output, "")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]

    report = json.loads((copy / "bench" / "report.json").read_text())
    [measured] = report["runs"]
    assert (measured["backend"], measured["size"]) == (bench_backend, SIZE)
    real_cases = len(list((ROOT / "fixtures" / "cases").glob("*.json")))
    assert measured["total_cases"] == real_cases + SIZE + 10  # the 10 more of the increment
    endpoints = measured["endpoints"]
    assert set(endpoints) == {name for name, *_ in bench_run().ENDPOINTS}
    # Every endpoint already answered 2xx six times in the warm-up (bench/run.py `warm`:
    # urllib raises on any other status, and the run fails). Under wrk no answer may be
    # other than 2xx and no socket may fail; a slow endpoint (the 200 KB log match on a
    # busy machine) may complete no request in its 1-second window, so only the floor is
    # required to have answered there.
    for name, figures in endpoints.items():
        for run in (figures, figures["one_client"]):
            assert run["non_2xx"] == 0 and not any(run["errors"].values()), (name, run)
    floor = bench_run().FLOOR
    assert endpoints[floor]["requests"] > 0
    assert endpoints[floor]["one_client"]["requests"] > 0
    assert endpoints[floor]["ratio_to_floor"] == 1.0
    assert all(peak > 0 for peak in measured["worker_peak_rss_mib"])
    assert len(measured["worker_peak_rss_mib"]) == 2

    column = f"{bench_backend} {SIZE:,}"
    report_md = (copy / "bench" / "report.md").read_text()
    assert f"## {bench_backend}, {SIZE:,} synthetic cases" in report_md
    assert "- ratios to the floor, `/robots.txt` (no database or cache read)" in report_md
    readme = (copy / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- bench table:", 1)[1].split("<!-- end of bench table -->", 1)[0]
    header = table.splitlines()[1]
    assert header.startswith("| req/s under 4 connections") and header.endswith(f"| {column} |"), header
