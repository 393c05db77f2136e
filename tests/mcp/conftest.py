"""Fixtures for the MCP tests: an in-memory SDK client (`InMemoryMcp`, which the `mcp` fixture
of tests/conftest.py builds), and a database a subprocess can open.

Tools run in the SDK's worker threads with their own connections, so they cannot see rows a
test writes inside its transaction; they do see the real cases imported (and committed) once
per session by tests/conftest.py. These tests only read, so a plain `db` is enough and the
cases are not re-imported for every test.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import anyio
import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from incidents.models import Case
from mcp_server.server import build_server

T = TypeVar("T")

# In the order tools/list gives them.
TOOL_ORDER = (
    "triage",
    "search_incidents",
    "get_incident",
    "list_incidents",
    "get_topic",
    "vocab",
    "similar_incidents",
    "match_log",
    "explain_error",
    "am_i_affected",
)
TOOL_NAMES = set(TOOL_ORDER)


class InMemoryMcp:
    """Drives the MCP server through the SDK's own client, in process."""

    def __init__(self) -> None:
        self.server = build_server()

    def run(self, action: Callable[[Client], Awaitable[T]]) -> T:
        async def main() -> T:
            async with Client(self.server) as client:
                return await action(client)

        return anyio.run(main)

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        return self.run(lambda client: client.call_tool(name, arguments))

    def ok(self, name: str, **arguments: Any) -> Any:
        """The structured result of a successful call (its text content is the same JSON)."""
        result = self.call(name, **arguments)
        assert not result.is_error, result.content[0].text
        assert json.loads(result.content[0].text) == result.structured_content
        return result.structured_content

    def error(self, name: str, **arguments: Any) -> str:
        """The message of a call that must fail as a tool error."""
        result = self.call(name, **arguments)
        assert result.is_error, result.structured_content
        assert result.structured_content is None
        return result.content[0].text

    def read(self, uri: str) -> str:
        result = self.run(lambda client: client.read_resource(uri))
        (content,) = result.contents
        assert content.mime_type == "text/markdown"
        return content.text

    def read_error(self, uri: str) -> MCPError:
        """The protocol error reading `uri` must answer with."""

        async def read(client: Client) -> MCPError:
            try:
                await client.read_resource(uri)
            except MCPError as error:
                return error
            raise AssertionError(f"{uri} was read")

        return self.run(read)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def served_database_url(django_db_setup, django_db_blocker, tmp_path_factory) -> str:
    """A DATABASE_URL another process can open, holding the real cases.

    PostgreSQL: the test database itself (the session's import is committed). SQLite: the
    test database is in memory, so it is copied into a file with SQLite's backup API.
    Tests using it are marked `django_db`, so they run before transactional tests flush.
    """
    with django_db_blocker.unblock():
        assert Case.objects.published().exists(), "the session's real cases are gone"
        connection.ensure_connection()
        if connection.vendor == "postgresql":
            s = connection.settings_dict
            auth = quote(s["USER"] or "") + (f":{quote(s['PASSWORD'])}" if s["PASSWORD"] else "")
            return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
        path = tmp_path_factory.mktemp("served") / "served.sqlite3"
        target = sqlite3.connect(path)
        try:
            connection.connection.backup(target)
        finally:
            target.close()
    return f"sqlite:///{path}"


def server_environment(database_url: str) -> dict[str, str]:
    """Environment for a server subprocess: the given database, default hosts, no extras."""
    return {
        "DATABASE_URL": database_url,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "MCP_ALLOWED_ORIGINS": "",
        "DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }


WORKERS = 2
STARTUP_SECONDS = 90


def _wait_until_started(process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server exited:\n{log.read_text()}")
        if log.read_text().count("Application startup complete.") >= WORKERS:
            return
        time.sleep(0.2)
    pytest.fail(f"the server did not start in {STARTUP_SECONDS} s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def base_url(served_database_url, tmp_path_factory, django_db_blocker) -> Iterator[str]:
    """The production server (`incidentlib.serve`, uvicorn workers with a socket each) with
    `make run`'s options on a free port, with two workers, against the test data.

    Afterwards the database cache is emptied: on PostgreSQL the server commits its rate
    counts (`throttle_<scope>_127.0.0.1`) to the session's database, where a later test's
    API request found them, and once they had expired (a minute on) deleted them, one
    query more than its pinned count: 25 instead of 24, depending on the time between."""
    port = free_port()
    log = tmp_path_factory.mktemp("uvicorn") / "server.log"
    command = [
        sys.executable,
        "-m",
        "incidentlib.serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(WORKERS),
        "--no-proxy-headers",
    ]
    with open(log, "wb") as output:
        process = subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, **server_environment(served_database_url)},
        )
    try:
        _wait_until_started(process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with django_db_blocker.unblock():
            cache.clear()
