"""X-Forwarded-For names the client only when the deployment says a proxy sets it.

`make run`'s server is started as the Makefile starts it: a client that forges the header
is still counted at its own address, so it cannot dodge the rate limits. With
`API_NUM_PROXIES=1` (one proxy in front, appending the address it saw) the last address in
the header is the client, as the load test's light clients rely on.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.mcp.conftest import free_port, server_environment
from tests.reliability.scratch import ROOT, scratch_database


@pytest.fixture
def database(tmp_path):
    # One per test: each server's counts (in the database's cache file) start empty.
    yield from scratch_database(tmp_path, "forwarded")


def make_run_server_arguments() -> list[str]:
    """uvicorn's arguments in `make run` (dry run), without the port."""
    plan = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True)
    [line] = [line for line in plan.stdout.splitlines() if "incidentlib.asgi:application" in line]
    words = shlex.split(line)
    arguments = words[words.index("incidentlib.asgi:application") + 1 :]
    port = arguments.index("--port")
    return arguments[:port] + arguments[port + 2 :]


def status(base: str, forwarded_for: str | None = None) -> int:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(f"{base}/api/stats", headers=headers), timeout=30):
            return 200
    except urllib.error.HTTPError as error:
        return error.code


@contextlib.contextmanager
def serve(database, tmp_path, **settings: str) -> Iterator[str]:
    port = free_port()
    env = {**database.env(), **server_environment(database.url), "API_THROTTLE_RATE": "2/minute"}
    env.pop("API_NUM_PROXIES", None)
    env.update(settings)
    log = (tmp_path / f"server-{port}.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "incidentlib.asgi:application", *make_run_server_arguments(),
         "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, (tmp_path / f"server-{port}.log").read_text()
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.3)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.fixture
def migrated(database):
    result = database.manage("migrate", "--no-input")
    assert result.returncode == 0, result.stderr
    return database


def test_make_run_does_not_let_uvicorn_trust_forwarded_headers():
    assert "--no-proxy-headers" in make_run_server_arguments()


def test_by_default_a_forged_forwarded_for_does_not_dodge_the_limit(migrated, tmp_path):
    with serve(migrated, tmp_path) as base:
        assert [status(base, f"192.0.2.{n}") for n in range(3)] == [200, 200, 429]


def test_with_one_proxy_configured_its_last_address_is_the_client(migrated, tmp_path):
    with serve(migrated, tmp_path, API_NUM_PROXIES="1") as base:
        assert [status(base, f"198.51.100.7, 10.1.0.{n}") for n in range(3)] == [200, 200, 200]
        assert [status(base, "10.1.0.9") for _ in range(3)] == [200, 200, 429]
        # The client that sends no header is counted at the proxy's (here its own) address.
        assert [status(base) for _ in range(3)] == [200, 200, 429]
