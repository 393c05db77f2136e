"""A server records its shared cache in the database when it starts with the store cache on
(without the password), and removes the record when it starts with the store cache off: a
library moved off Redis kept a row naming the old cache, and every later write from a
command kept telling a cache no server read, refused once it was gone. Done on the
application's first call (incidentlib/server_start.py), never when the WSGI or ASGI module
is imported: pytest imports the WSGI application while collecting, when no database may
be used. Real servers: `python -m incidentlib.serve` (uvicorn, as `make run`) and
`manage.py runserver` (WSGI)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.mcp.conftest import free_port, server_environment
from tests.reliability.protected_redis import PASSWORD, protected_redis_server
from tests.reliability.scratch import ROOT, ScratchDatabase, scratch_database

REDIS = "incidentlib.redis_cache.SharedPoolRedisCache"
# An old record: the Redis a library used before (nothing listens on port 1).
OLD_REDIS = {"BACKEND": REDIS, "LOCATION": "redis://127.0.0.1:1/0"}


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Iterator[ScratchDatabase]:
    for database in scratch_database(tmp_path_factory.mktemp("server-start"), "server_start"):
        result = database.manage("migrate", "--no-input")
        assert result.returncode == 0, result.stderr
        yield database


@pytest.fixture(scope="module")
def protected_redis(tmp_path_factory) -> Iterator[int]:
    with protected_redis_server(tmp_path_factory.mktemp("protected-redis")) as port:
        yield port


def shell(database: ScratchDatabase, code: str) -> str:
    result = database.manage("shell", "-c", f"from incidents.models import ServersCache; {code}")
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def records(database: ScratchDatabase) -> list[dict]:
    """The servers' cache rows: config and needs_credentials."""
    code = "import json; print(json.dumps(list(ServersCache.objects.values('config', 'needs_credentials'))))"
    return json.loads(shell(database, code).splitlines()[-1])


def set_record(database: ScratchDatabase, config: dict, needs_credentials: bool) -> None:
    shell(
        database,
        "ServersCache.objects.update_or_create(pk=1, defaults={'config': "
        f"{config!r}, 'needs_credentials': {needs_credentials!r}}})",
    )


def environment(database: ScratchDatabase, cache_url: str | None) -> dict[str, str]:
    env = {**database.env(), **server_environment(database.url)}
    # The settings say, not .env (which may name the servers' cache of the checkout).
    env["CACHE_URL"] = cache_url or ""
    env["STORE_CACHE"] = "true" if cache_url else "false"
    return env


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def server(kind: str, env: dict[str, str], log: Path) -> Iterator[int]:
    """A server of `kind` (asgi: `python -m incidentlib.serve`; wsgi: `manage.py runserver`)
    on a free port, listening, with no request sent yet."""
    port = free_port()
    command = {
        "asgi": [sys.executable, "-m", "incidentlib.serve", "--workers", "1", "--port", str(port)],
        "wsgi": [
            sys.executable,
            "manage.py",
            "runserver",
            "--noreload",
            "--skip-checks",
            f"127.0.0.1:{port}",
        ],
    }[kind]
    with log.open("w") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 90
            while not listening(port):
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, f"the server did not come up:\n{log.read_text()}"
                time.sleep(0.2)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=30)


def healthz(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as answer:
        return answer.status


def test_importing_the_server_applications_touches_no_database(tmp_path):
    """With the store cache on (CACHE_URL in .env, as the README says): the record was
    written at import, and collecting the test suite failed on the database access."""
    code = (
        "from django.db.backends.signals import connection_created\n"
        "opened = []\n"
        "def note(sender, connection, **kw):\n"  # a named function: signals hold receivers weakly
        "    opened.append(connection.alias)\n"
        "connection_created.connect(note)\n"
        "import incidentlib.asgi, incidentlib.wsgi\n"
        "print(opened)\n"
    )
    redis_url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    env = {
        **os.environ,
        **server_environment(f"sqlite:///{tmp_path / 'db.sqlite3'}"),
        "CACHE_URL": redis_url,
        "STORE_CACHE": "true",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_a_server_without_the_store_cache_removes_the_record(migrated, tmp_path, kind):
    set_record(migrated, OLD_REDIS, False)
    with server(kind, environment(migrated, None), tmp_path / "server.log") as port:
        if kind == "asgi":  # uvicorn's lifespan start-up, which ends before it listens
            assert records(migrated) == []
        else:  # no start-up event: the first request does it
            assert records(migrated) == [{"config": OLD_REDIS, "needs_credentials": False}]
        assert healthz(port) == 200
        assert records(migrated) == []


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_a_server_with_the_store_cache_records_it_without_the_password(
    migrated, protected_redis, tmp_path, kind
):
    set_record(migrated, OLD_REDIS, False)
    cache_url = f"redis://:{PASSWORD}@127.0.0.1:{protected_redis}/0"
    with server(kind, environment(migrated, cache_url), tmp_path / "server.log") as port:
        assert healthz(port) == 200
        assert records(migrated) == [
            {
                "config": {"BACKEND": REDIS, "LOCATION": f"redis://127.0.0.1:{protected_redis}/0"},
                "needs_credentials": True,
            }
        ]
    assert PASSWORD not in (tmp_path / "server.log").read_text()
