"""A database `migrate` never ran on is named as such by every command that reads or writes
cases, with what to do (one shared check, `incidents.database_ready`), instead of a
traceback ending in `OperationalError: no such table: incidents_case`; an MCP tool says so
too instead of "did not answer; try again in a moment" (and `mcp_stdio` serves meanwhile:
tests/mcp/test_stdio_answers_before_the_database_is_set_up.py)."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from mcp.server.mcpserver.exceptions import ToolError

from mcp_server import toolkit
from tests.reliability.scratch import scratch_database

pytestmark = pytest.mark.django_db


def test_each_command_says_to_migrate_first(tmp_path):
    (tmp_path / "backup").mkdir()
    for database in scratch_database(tmp_path, "unmigrated"):
        where = database.name if database.vendor == "sqlite" else f"PostgreSQL database {database.name!r} on "
        for command in (
            ["import_cases", "--restore", str(tmp_path / "backup")],
            ["import_cases", "--dry-run", "fixtures/cases"],
            ["export_cases", str(tmp_path / "out")],
            ["export_cases", str(tmp_path / "out"), "--backup"],
            ["rebuild_search"],
        ):
            result = database.manage(*command)
            assert result.returncode == 1, command
            assert "Traceback" not in result.stderr, command
            assert f"CommandError: the database at {where}" in result.stderr, command
            assert result.stderr.rstrip().endswith(
                "has no incidentlib tables: run `manage.py migrate` first"
            ), command
        assert not (tmp_path / "out").exists()


def test_an_mcp_tool_says_the_database_is_not_set_up(monkeypatch):
    def read() -> None:
        raise OperationalError("no such table: incidents_case")

    sentence = "the database at var/x.sqlite3 has no incidentlib tables: run `make data` in /srv/il"
    monkeypatch.setattr(toolkit, "database_problem", lambda: sentence)
    with pytest.raises(ToolError) as answered:
        toolkit.with_database(read)()
    assert str(answered.value) == f"The incident database is not set up: {sentence}."

    monkeypatch.setattr(toolkit, "database_problem", lambda: None)
    with pytest.raises(ToolError) as answered:
        toolkit.with_database(read)()
    assert str(answered.value) == "The incident database did not answer; try again in a moment."
