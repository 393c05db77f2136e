"""/healthz checks every database alias and the shared cache, and names what fails; a
database error mid-request names the alias (the driver's message goes to the log only).
/healthz with the cache server down: tests/reliability/test_a_cache_server_down.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.reliability.scratch import ROOT

pytestmark = pytest.mark.django_db

DRIVER_MESSAGE = "unable to open database file"


# Run in a child process configured as the operator's server was: a replica URL naming a
# database that cannot be opened. Prints /healthz's and a case's answers as JSON.
REPLICA_SCRIPT = """
import json
from django.test import Client
client = Client()
health = client.get("/healthz")
case = client.get("/api/cases/IL-0428")
print(json.dumps({"health": [health.status_code, health.json()], "case": [case.status_code, case.json()]}))
"""


@pytest.fixture(scope="module")
def broken_replica(tmp_path_factory) -> tuple[dict, str]:
    """The child's answers and its log, with DATABASE_REPLICA_URLS naming a missing file."""
    folder = tmp_path_factory.mktemp("replica")
    env = {
        **os.environ,
        "LOG_FORMAT": "text",
        "ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{folder / 'primary.sqlite3'}",
        "DATABASE_REPLICA_URLS": f"sqlite:///{folder / 'missing' / 'replica.sqlite3'}",
    }
    env.pop("CACHE_URL", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", REPLICA_SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def test_healthz_reports_each_database_and_the_cache(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "databases": {"default": "ok"}, "cache": "ok"}


def test_healthz_is_503_naming_a_replica_that_fails(broken_replica):
    answers, log = broken_replica
    assert answers["health"] == [
        503,
        {
            "status": "unavailable",
            "databases": {"default": "ok", "replica1": "OperationalError"},
            "cache": "ok",
        },
    ]
    assert f"healthz: database replica1: OperationalError: {DRIVER_MESSAGE}" in log


def test_a_failing_replica_is_named_in_the_503_and_the_log(broken_replica):
    answers, log = broken_replica
    status, body = answers["case"]
    assert status == 503
    assert (
        body["detail"]
        == "The case database (replica1) is not answering right now. Try again in a few seconds."
    )
    assert DRIVER_MESSAGE not in json.dumps(body)
    assert (
        f"database unavailable: GET /api/cases/IL-0428: database replica1: OperationalError: {DRIVER_MESSAGE}"
        in log
    )
