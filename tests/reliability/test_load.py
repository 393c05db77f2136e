"""A bounded load test against the production server configuration while imports run:
`incidentlib.serve` with two uvicorn workers, DEBUG off, 200 connections from `wrk` (Debian's package)
over mixed traffic (pages, API search, similar cases, log matching, MCP search, get, similar
and match_log calls). Imports run back to back for the whole load: the first is caught
writing before the load starts, one is still running when it ends. It must end with zero
5xx and zero dropped connections; the per-client rate limits stop the one noisy client with
429 + Retry-After, through the API and MCP alike (one count per client and scope), while the
many light clients get real answers, MCP ones included.

How long the load runs depends on what was answered, not on the clock alone. Every
connection sends its first request at once (the light clients' search, similar and match
among them), but the server works on some 100 requests per worker at a time, so a request
that does real work is answered only after many cheap ones (429s, pages); on a busy machine
that took longer than any fixed run, and wrk drops what is unanswered when it stops: the
light clients' matches were sent and never seen answered. So the load runs at least
`SECONDS`, then until the server has answered each kind of light API work with a 200 and wrk
has seen each MCP call answered; the test then ends it (SIGINT: wrk stops and reports).
wrk's own `-d` is only the bound for a server that never answers them, and then the checks
below fail. Which 200s are the light clients' is known: the noisy client spends its one
request per scope and hour before the load, so each of its API requests and MCP calls during
the load is refused, and every MCP answer that is not a 429 is a light client's. Speed is
measured by `make bench`, not here."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

import pytest

from tests.conftest import CASES_DIR, VOCAB_FILE
from tests.factories import synthetic_case, write_cases
from tests.mcp.conftest import free_port, server_environment
from tests.reliability.scratch import ROOT, scratch_database, writing_rows

pytestmark = pytest.mark.django_db(transaction=True)

CONNECTIONS = 200
SECONDS = 25  # the least the load runs: every kind of request is sent and the noisy client refused
# wrk's own end, reached only when the light work or an MCP call is never answered.
MOST_SECONDS = 300
LUA = ROOT / "bench" / "mixed.lua"
# Each import of the back-to-back series: two versions of the same cases, in turn, so that
# every import after the first rewrites them all.
IMPORT_SIZE = 400
# The JSON-RPC ids mixed.lua gives its MCP calls.
MCP_CALLS = {"11": "search_incidents", "12": "get_incident", "13": "similar_incidents", "14": "match_log"}
# The API work that must really run under load (not only be refused), by request line: during
# the load only light clients get 200s for it.
API_WORK = {
    "search": "GET /api/cases/?q=",
    "similar": "GET /api/cases/IL-0430/similar",
    "match": "POST /api/match",
}


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


def request_as_noisy_client(base: str, path: str, body: bytes | None = None) -> int:
    """The status of one request from the noisy client's address (no X-Forwarded-For)."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    request = urllib.request.Request(f"{base}{path}", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def access_statuses(log: str) -> dict[str, dict[int, int]]:
    """{kind of API work: {status: count}} from uvicorn's access log (a JSON object a line,
    `incidentlib.logs.format_server_logs`, with the request's method, path and status)."""
    found: dict[str, dict[int, int]] = {kind: {} for kind in API_WORK}
    for line in log.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut where the load's offset fell
        if record.get("logger") != "uvicorn.access":
            continue
        for kind, prefix in API_WORK.items():
            if f"{record['method']} {record['path']}".startswith(prefix):
                status = int(record["status_code"])
                found[kind][status] = found[kind].get(status, 0) + 1
    return found


def load_statuses(access_log, offset: int) -> dict[str, dict[int, int]]:
    """`access_statuses` of the requests logged from `offset` on (those of the load)."""
    with access_log.open("rb") as log:
        log.seek(offset)
        return access_statuses(log.read().decode(errors="replace"))


def read_wrk(load: subprocess.Popen[str], out: list[str], mcp_answered: set[str]) -> None:
    """Collect wrk's output lines into `out`, and the MCP calls seen answered (mixed.lua's
    "WRK-MCP-OK <id>" lines) into `mcp_answered`."""
    assert load.stdout is not None
    for line in load.stdout:
        out.append(line)
        if line.startswith("WRK-MCP-OK "):
            mcp_answered.add(line.split()[1])


@dataclass(frozen=True)
class ImportRun:
    started: float
    ended: float
    returncode: int
    out: str
    err: str


def import_back_to_back(database, first: subprocess.Popen[str], started: float, batches, stop, runs) -> None:
    """Wait for `first`, then import the batches in turn until `stop` is set, recording each run."""
    process, number = first, 0
    while True:
        out, err = process.communicate(timeout=900)
        runs.append(ImportRun(started, time.monotonic(), process.returncode, out, err))
        if stop.is_set() or process.returncode != 0:
            return
        number += 1
        started = time.monotonic()
        process = database.start("import_cases", "--vocab", str(VOCAB_FILE), str(batches[number % 2]))


def test_mixed_load_during_an_import_has_no_5xx_and_no_dropped_connection(database, tmp_path):
    wrk = shutil.which("wrk")
    assert wrk, "wrk is missing: `make loadtool` installs Debian's wrk"
    for args in (("migrate", "--no-input"), ("import_cases", "--vocab", str(VOCAB_FILE), str(CASES_DIR))):
        result = database.manage(*args)
        assert result.returncode == 0, result.stderr
    batches = [tmp_path / "batch-a", tmp_path / "batch-b"]
    for version, batch in enumerate(batches):
        write_cases(batch, [synthetic_case(n, seed=n + 1000 * version) for n in range(1, IMPORT_SIZE + 1)])

    port = free_port()
    env = {
        **database.env(),
        **server_environment(database.url),
        "DEBUG": "0",
        "LOG_FORMAT": "json",
        # One request per scope for the whole test: the noisy client spends it before the load
        # and is refused throughout; each light client sends one request, always within it.
        "API_THROTTLE_RATE": "1/hour",
        "API_HEAVY_THROTTLE_RATE": "1/hour",
        # Production setting on PostgreSQL: each worker shares a bounded pool of connections.
        "DB_POOL_MAX_SIZE": "8",
        # The light clients' X-Forwarded-For counts as from one proxy in front (the server
        # trusts no forwarded header by itself: --no-proxy-headers, as `make run`).
        "API_NUM_PROXIES": "1",
    }
    access_log = tmp_path / "access.log"
    with access_log.open("w") as access:
        server = subprocess.Popen(
            [sys.executable, "-m", "incidentlib.serve", "--host", "127.0.0.1",
             "--port", str(port), "--workers", "2", "--backlog", "4096", "--no-proxy-headers"],
            cwd=ROOT, env=env, stdout=access, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    stop, runs = threading.Event(), list[ImportRun]()
    mcp_answered: set[str] = set()
    load: subprocess.Popen[str] | None = None
    try:
        wait_until_healthy(base, server)
        # The noisy client's one request of each scope, so that every 200 of API work during
        # the load is a light client's.
        assert request_as_noisy_client(base, "/api/vocab/") == 200
        assert request_as_noisy_client(base, "/api/match", b'{"text": "NCCL WARN Timeout"}') == 200
        assert request_as_noisy_client(base, "/api/vocab/") == 429
        started = time.monotonic()
        first = database.start("import_cases", "--vocab", str(VOCAB_FILE), str(batches[0]))
        deadline = time.monotonic() + 600
        while not writing_rows(database, first):
            assert first.poll() is None, "the first import ended before it was seen writing"
            assert time.monotonic() < deadline, "the first import never started writing"
            time.sleep(0.05)
        importer = threading.Thread(
            target=import_back_to_back, args=(database, first, started, batches, stop, runs)
        )
        importer.start()
        before_load = access_log.stat().st_size
        load_started = time.monotonic()
        load = subprocess.Popen(
            [wrk, "-t2", f"-c{CONNECTIONS}", f"-d{MOST_SECONDS}s", "--timeout", "60s", "-s", str(LUA), base],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        out: list[str] = []
        reader = threading.Thread(target=read_wrk, args=(load, out, mcp_answered))
        reader.start()
        while load.poll() is None:
            if (
                time.monotonic() - load_started >= SECONDS
                and mcp_answered >= set(MCP_CALLS)
                and all(counts.get(200) for counts in load_statuses(access_log, before_load).values())
            ):
                load.send_signal(signal.SIGINT)
                break
            time.sleep(0.5)
        load.wait(timeout=120)
        load_ended = time.monotonic()
        reader.join(timeout=60)
        load_err = load.stderr.read() if load.stderr else ""
        (tmp_path / "wrk.out").write_text("".join(out) + load_err)  # how long it ran, for a reader
        stop.set()
        importer.join(timeout=900)
        assert not importer.is_alive(), "the last import did not end"
    finally:
        if load is not None and load.poll() is None:
            load.kill()
            load.wait()
        stop.set()
        server.terminate()
        _, server_log = server.communicate(timeout=60)

    # Imports covered the whole load: the first was writing when it began, one was still
    # running when it ended, and each ended whole.
    assert [(r.returncode, r.out.split(":")[0]) for r in runs] == [
        (0, f"imported {IMPORT_SIZE} case(s)")
    ] * len(runs), [r.err[-2000:] for r in runs]
    assert runs[0].started < load_started and runs[-1].ended > load_ended, (load_started, load_ended, runs)
    assert any(r.started <= load_ended <= r.ended for r in runs)
    # The cases hold the version the last import wrote, whole.
    exported = database.manage("export_cases", str(tmp_path / "after"))
    assert exported.returncode == 0, exported.stderr
    last = batches[(len(runs) - 1) % 2]
    for name in ("IL-900001.json", f"IL-{900000 + IMPORT_SIZE}.json"):
        stored = json.loads((tmp_path / "after" / name).read_text())
        written = json.loads((last / name).read_text())
        assert (stored["title"], stored["summary"]) == (written["title"], written["summary"]), name
    line = next((line for line in out if line.startswith("WRK-RESULT ")), None)
    assert line, ("".join(out)[-2000:], load_err[-2000:])
    result = json.loads(line.removeprefix("WRK-RESULT "))
    statuses = {int(status): n for status, n in result["statuses"].items()}
    # Every kind of request in the script was sent (15 kinds, from both kinds of client).
    assert result["requests"] >= 60, result
    assert result["errors"] == {"connect": 0, "read": 0, "write": 0, "timeout": 0}, result
    assert [s for s in statuses if s >= 500] == [], result
    assert set(statuses) <= {200, 429}, result
    # The noisy client was limited, every refusal saying when to come back: on SQLite too,
    # where the counts live in the cache's own file, apart from the import's write lock.
    assert statuses.get(429, 0) > 0, result
    assert result["missing_retry_after"] == 0, result
    # Each MCP tool answered the light clients, and never with an error; the noisy client's
    # calls were refused as its API requests were (429 with Retry-After, counted above).
    assert set(result["mcp"]) == set(MCP_CALLS), result
    for call_id, tool in MCP_CALLS.items():
        answers = result["mcp"][call_id]
        assert answers["ok"] > 0 and answers["error"] == 0, (tool, result["mcp"])
        assert answers["refused"] > 0, (tool, result["mcp"])
    # The light clients got real API search, similar and match answers under the load.
    work = load_statuses(access_log, before_load)
    for kind, counts in work.items():
        assert [s for s in counts if s >= 500] == [], (kind, work)
        assert counts.get(200, 0) > 0, (kind, work)
    assert "Traceback (most recent call last)" not in server_log
    assert '"level": "ERROR"' not in server_log, server_log[-2000:]
