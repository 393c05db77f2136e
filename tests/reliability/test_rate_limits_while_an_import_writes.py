"""The default install (SQLite, no CACHE_URL) counts rate limits in a file of its own, so an
import holding the case file's write lock neither stalls API requests nor opens the limits.

A child process serves API requests (Django's test client, real settings) while this test
holds the case file's write lock the way an import does (`BEGIN IMMEDIATE`). When the
counts shared that file, each count waited the lock's 60 seconds and was then dropped.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from incidentlib.cache_database import cache_file_for
from tests.reliability.scratch import ROOT, ScratchDatabase

REQUESTS = """
import json, time
from django.conf import settings
from django.test import Client
client, started = Client(), time.monotonic()
statuses = [client.get("/api/stats", REMOTE_ADDR="10.9.9.9").status_code for _ in range(3)]
print(json.dumps({
    "statuses": statuses,
    "seconds": time.monotonic() - started,
    "cache_file": settings.DATABASES["cache"]["NAME"],
}))
"""


@pytest.fixture
def database(tmp_path) -> ScratchDatabase:
    """An SQLite file whatever database the suite runs on: the default install is what is
    tested (PostgreSQL locks rows, not the database, so its cache table never waits)."""
    path = tmp_path / "locked.sqlite3"
    return ScratchDatabase(url=f"sqlite:///{path}", vendor="sqlite", name=str(path))


def test_limits_hold_and_requests_do_not_wait_while_the_case_file_is_write_locked(database):
    migrated = database.manage("migrate", "--no-input")
    assert migrated.returncode == 0, migrated.stderr
    cache_file = cache_file_for(database.name)
    # A fresh machine: the cache's file is created on first use, by the first request.
    cache_file.unlink(missing_ok=True)
    env = {**database.env(), "DEBUG": "0", "ALLOWED_HOSTS": "testserver", "API_THROTTLE_RATE": "2/minute"}
    env.pop("CACHE_URL", None)
    import_lock = sqlite3.connect(database.name, isolation_level=None, timeout=0)
    try:
        import_lock.execute("BEGIN IMMEDIATE")
        result = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", REQUESTS],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        import_lock.rollback()
        import_lock.close()
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["statuses"] == [200, 200, 429], answer
    assert answer["seconds"] < 20, answer
    assert Path(answer["cache_file"]) == cache_file == Path(database.name).with_name("locked.cache.sqlite3")
    assert cache_file.exists()
