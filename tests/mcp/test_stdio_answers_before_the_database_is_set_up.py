"""`manage.py mcp_stdio` on a database not set up answers `initialize` and says what to run.

Configured in a desktop client before `make data`, the command exited before answering
`initialize` ("no incidentlib tables: run `manage.py migrate` first" on stderr, which the
client hides in a log file; it shows only "server disconnected"), and left an empty SQLite
file behind (a new user's walkthrough, W32). Now it serves, each tool answers the problem as
a tool error with what to run, and a missing file is not created.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from tests.mcp.test_stdio import initialize_request, run_stdio
from tests.reliability.scratch import scratch_database

pytestmark = pytest.mark.django_db

SEARCH = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "search_incidents", "arguments": {"query": "nccl timeout"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def session(database_url: str) -> tuple[list[dict], str]:
    """The answers (by id) and the stderr of an initialize then a search over stdio."""
    finished = run_stdio(database_url, [json.dumps(m) for m in (initialize_request(1), INITIALIZED, SEARCH)])
    assert finished.returncode == 0, finished.stderr
    answers = sorted((json.loads(line) for line in finished.stdout.splitlines()), key=lambda a: a["id"])
    return answers, finished.stderr


def test_a_missing_database_file_is_answered_and_not_created(tmp_path):
    missing = tmp_path / "not-yet.sqlite3"
    answers, stderr = session(f"sqlite:///{missing}")
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[0]["result"]["serverInfo"]["name"] == "incidentlib"
    problem = f"there is no database file at {missing}: run `make data` in {Path(settings.BASE_DIR)}"
    assert answers[1]["result"] == {
        "content": [{"type": "text", "text": f"The incident database is not set up: {problem}."}],
        "isError": True,
    }
    assert f"warning: {problem}; serving anyway" in stderr
    assert not missing.exists()
    assert list(tmp_path.iterdir()) == []


def test_an_unmigrated_database_is_answered_with_what_to_run(tmp_path):
    for database in scratch_database(tmp_path, "unmigrated"):
        if database.vendor == "sqlite":
            Path(database.name).touch()  # there, but `migrate` never ran on it
        answers, stderr = session(database.url)
        where = database.name if database.vendor == "sqlite" else f"PostgreSQL database {database.name!r} on "
        assert answers[0]["result"]["serverInfo"]["name"] == "incidentlib"
        assert answers[1]["result"]["isError"] is True
        [text] = [c["text"] for c in answers[1]["result"]["content"]]
        assert text.startswith(f"The incident database is not set up: the database at {where}")
        assert text.endswith(f"has no incidentlib tables: run `make data` in {Path(settings.BASE_DIR)}.")
        assert "has no incidentlib tables: run `make data`" in stderr
