"""A bounded load test against the production server configuration while an import runs:
uvicorn with two workers, DEBUG off, 200 connections from `wrk` (Debian's package) for a
fixed time over mixed traffic (pages, API search, similar cases, MCP calls, log matching).
It must end with zero 5xx and zero dropped connections; the per-client rate limits answer
429 with Retry-After. Speed is measured by `make bench`, not here."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import CASES_DIR, VOCAB_FILE
from tests.factories import synthetic_case, write_cases
from tests.mcp.conftest import free_port, server_environment
from tests.reliability.scratch import ROOT, scratch_database

pytestmark = pytest.mark.django_db(transaction=True)

CONNECTIONS = 200
SECONDS = 15
LUA = ROOT / "bench" / "mixed.lua"


@pytest.fixture
def database(tmp_path):
    yield from scratch_database(tmp_path, "load")


def wait_until_healthy(base: str, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited"
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError("the server did not come up")


def test_mixed_load_during_an_import_has_no_5xx_and_no_dropped_connection(database, tmp_path):
    wrk = shutil.which("wrk")
    assert wrk, "wrk is missing: `make loadtool` installs Debian's wrk"
    for args in (("migrate", "--no-input"), ("import_cases", "--vocab", str(VOCAB_FILE), str(CASES_DIR))):
        result = database.manage(*args)
        assert result.returncode == 0, result.stderr
    batch = tmp_path / "batch"
    write_cases(batch, [synthetic_case(n) for n in range(1, 301)])

    port = free_port()
    env = {
        **database.env(),
        **server_environment(database.url),
        "DEBUG": "0",
        "LOG_FORMAT": "json",
        # Low enough that one client's share of the mixed traffic must reach it.
        "API_THROTTLE_RATE": "3/minute",
        "API_HEAVY_THROTTLE_RATE": "2/minute",
        # Production setting on PostgreSQL: each worker shares a bounded pool of connections.
        "DB_POOL_MAX_SIZE": "8",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "incidentlib.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--workers", "2", "--no-access-log", "--backlog", "4096"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base, server)
        importer = database.start("import_cases", "--vocab", str(VOCAB_FILE), str(batch))
        load = subprocess.run(
            [wrk, "-t2", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "--timeout", "60s", "-s", str(LUA), base],
            capture_output=True, text=True, timeout=SECONDS + 120,
        )  # fmt: skip
        out, err = importer.communicate(timeout=600)
        assert importer.returncode == 0, err
        assert out.startswith("imported 300 case(s)"), out
    finally:
        server.terminate()
        _, server_log = server.communicate(timeout=60)

    line = next(line for line in load.stdout.splitlines() if line.startswith("WRK-RESULT "))
    result = json.loads(line.removeprefix("WRK-RESULT "))
    statuses = {int(status): n for status, n in result["statuses"].items()}
    # Every kind of request in the script was sent (13 kinds, round robin on two threads).
    assert result["requests"] >= 26, result
    assert result["errors"] == {"connect": 0, "read": 0, "write": 0, "timeout": 0}, result
    assert [s for s in statuses if s >= 500] == [], result
    assert set(statuses) <= {200, 429}, result
    assert statuses.get(200, 0) > 0, result
    # All traffic comes from one address, so the API's per-client limit engaged.
    assert statuses.get(429, 0) > 0 and result["missing_retry_after"] == 0, result
    assert "Traceback (most recent call last)" not in server_log
    assert '"level": "ERROR"' not in server_log, server_log[-2000:]
