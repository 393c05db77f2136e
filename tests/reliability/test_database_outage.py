"""The database going away under a running server: 503 with a clear body, and back to 200
without a restart when it returns. PostgreSQL (a private server) is stopped and started."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import CASES_DIR, VOCAB_FILE
from tests.mcp.conftest import free_port, server_environment
from tests.reliability.private_postgres import PrivatePostgres

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.fixture
def postgres():
    # Not under tmp_path: pytest's folders are private to root, the server runs as postgres.
    directory = Path(tempfile.mkdtemp(prefix="incidentlib-pg-"))
    server = PrivatePostgres(directory, free_port())
    server.init()
    server.start()
    yield server
    try:
        server.stop()
    except subprocess.CalledProcessError:
        pass  # already stopped by the test
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def app(postgres):
    env = {**os.environ, **server_environment(postgres.url)}
    for args in (("migrate", "--no-input"), ("import_cases", "--vocab", str(VOCAB_FILE), str(CASES_DIR))):
        subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True
        )
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "incidentlib.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--workers", "2", "--no-access-log"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if fetch(f"{base}/healthz")[0] == 200:
                break
        except OSError:
            pass
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "the server did not come up"
        time.sleep(0.2)
    yield base
    process.terminate()
    _, errors = process.communicate(timeout=30)
    # Whatever went wrong was logged as single JSON lines, never as a bare traceback.
    assert "Traceback (most recent call last)" not in errors


def test_an_outage_is_a_503_and_the_app_recovers_without_a_restart(postgres, app):
    for path in ("/healthz", "/api/cases/IL-0428", "/cases/IL-0428"):
        assert fetch(app + path)[0] == 200, path

    postgres.stop()
    status, headers, body = fetch(app + "/api/cases/IL-0428")
    assert status == 503 and headers["Retry-After"] == "5"
    assert json.loads(body)["detail"] == (
        "The case database (default) is not answering right now. Try again in a few seconds."
    )
    status, headers, body = fetch(app + "/cases/IL-0428")
    assert status == 503 and "The case database (default) is not answering right now" in body.decode()
    status, _, body = fetch(app + "/healthz")
    assert status == 503 and json.loads(body)["status"] == "unavailable"
    assert json.loads(body)["databases"] == {"default": "OperationalError"}

    postgres.start()
    # Two workers, each with its own broken connection: every one recovers on its next request.
    answers = [
        fetch(app + path)[0] for _ in range(4) for path in ("/healthz", "/api/cases/IL-0428", "/cases/")
    ]
    assert answers == [200] * len(answers)
