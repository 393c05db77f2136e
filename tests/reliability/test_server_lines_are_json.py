"""The served configuration (`make run`: uvicorn with `incidentlib.asgi`) writes uvicorn's own
lines as the app writes its lines, one JSON object each: start-up lines and one access line
a request, that with its client, method, path, status and duration as fields. They were uvicorn's
plain text (`INFO:     127.0.0.1:50000 - "GET /healthz HTTP/1.1" 200 OK`) beside the app's
JSON. Which lines uvicorn writes stays its choice: `--no-access-log` still writes none."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.mcp import conftest as mcp_fixtures
from tests.mcp.conftest import free_port, server_environment

ROOT = Path(__file__).resolve().parents[2]
served_database_url = mcp_fixtures.served_database_url  # the fixture: a database the server can open

# Marked so this runs before transactional tests flush the session's cases (which the
# server reads from the same database on PostgreSQL).
pytestmark = pytest.mark.django_db


def serve_and_request(database_url: str, tmp_path: Path, *options: str) -> list[dict]:
    """Serve as `make run` does (plus `options`), request /healthz twice, stop the server;
    every line it wrote to stdout and stderr, each read as JSON."""
    port = free_port()
    out, err = tmp_path / "stdout.log", tmp_path / "stderr.log"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "incidentlib.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--no-proxy-headers", "--log-level", "info", *options],
            cwd=ROOT, env={**server_environment(database_url), "LOG_LEVEL": "INFO"},
            stdout=stdout, stderr=stderr,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while "Application startup complete." not in err.read_text():
            assert process.poll() is None, err.read_text()
            assert time.monotonic() < deadline, err.read_text()
            time.sleep(0.2)
        for _ in range(2):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz?probe=1", timeout=30) as response:
                assert response.status == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
    lines = [line for path in (out, err) for line in path.read_text().splitlines() if line.strip()]
    return [json.loads(line) for line in lines]  # raises on a line that is not JSON


def test_uvicorns_start_up_and_access_lines_are_json_with_fields(served_database_url, tmp_path):
    records = serve_and_request(served_database_url, tmp_path)
    assert "Application startup complete." in [
        r["message"] for r in records if r["logger"] == "uvicorn.error"
    ]
    access = [r for r in records if r["logger"] == "uvicorn.access"]
    assert [(r["method"], r["path"], r["status_code"], r["level"]) for r in access] == [
        ("GET", "/healthz?probe=1", 200, "INFO")
    ] * 2
    assert access[0]["client_addr"].startswith("127.0.0.1:")
    # How long the request took until its answer started, and its client as the rate limits
    # count it (the connection's address here: no API_NUM_PROXIES).
    assert [(type(r["duration_ms"]), r["client"]) for r in access] == [(float, "127.0.0.1")] * 2
    assert all(0 < r["duration_ms"] < 30_000 for r in access)
    assert access[0]["message"].endswith(
        f'"GET /healthz?probe=1 HTTP/1.1" 200 {access[0]["duration_ms"]:.1f} ms, client 127.0.0.1'
    )
    # uvicorn's coloured twin of a message (ANSI escapes) is no field of a JSON line.
    running = [r for r in records if r["message"].startswith("Uvicorn running on http://127.0.0.1:")]
    assert len(running) == 1 and "color_message" not in running[0]
    assert not any("\u001b" in json.dumps(r) for r in records)


def test_no_access_log_still_writes_no_access_line(served_database_url, tmp_path):
    records = serve_and_request(served_database_url, tmp_path, "--no-access-log")
    assert [r for r in records if r["logger"] == "uvicorn.access"] == []
    assert any(r["message"] == "Application startup complete." for r in records)
