"""A database of its own for tests that run `manage.py` in child processes and kill them.

SQLite: a file in the test's tmp_path (WAL, as in production). PostgreSQL: a database next
to the test database on the same server, dropped afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from django.conf import settings
from psycopg.conninfo import make_conninfo

ROOT = Path(settings.BASE_DIR)


# Run by `manage.py shell -c` (`ScratchDatabase.manage_interrupted`).
INTERRUPTED = """
import importlib, subprocess, sys
from django.core.management import call_command

module = importlib.import_module({module!r})
wrapped = getattr(module, {name!r})

def interrupted(*args, **kwargs):
    done = wrapped(*args, **kwargs)
    subprocess.run([sys.executable, "manage.py", "shell", "-c", {write!r}], check=True, timeout=300)
    print("written meanwhile")
    return done

setattr(module, {name!r}, interrupted)
call_command(*{command!r})
"""


@dataclass(frozen=True)
class ScratchDatabase:
    url: str
    vendor: str
    name: str

    def env(self) -> dict[str, str]:
        return {**os.environ, "DATABASE_URL": self.url, "LOG_FORMAT": "text"}

    def manage(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def seed(self) -> None:
        """Migrate and import the bundled vocabulary and cases (similar-case lists left for
        later: the tests reading it need the cases, not their lists)."""
        migrated = self.manage("migrate", "--no-input")
        assert migrated.returncode == 0, migrated.stderr
        seeded = self.manage(
            "import_cases", "--neighbours-later", "--vocab", "fixtures/vocab.json", "fixtures/cases"
        )
        assert seeded.returncode == 0, seeded.stderr

    def manage_interrupted(self, target: str, write: str, *command: str) -> subprocess.CompletedProcess[str]:
        """`manage.py <command>` in a process of its own, in which `target` (`module.function`,
        called through its module) runs, then has a second process run `write` (Python, by
        `manage.py shell -c`) and waits for it to commit before returning: a write between
        two reads of the command. Its output ends the line "written meanwhile" after it."""
        module, name = target.rsplit(".", 1)
        script = INTERRUPTED.format(module=module, name=name, write=write, command=command)
        return self.manage("shell", "-c", script)

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def _server() -> dict[str, str]:
    default = settings.DATABASES["default"]
    return {
        "host": str(default.get("HOST") or "127.0.0.1"),
        "port": str(default.get("PORT") or 5432),
        "user": str(default.get("USER") or "postgres"),
        "password": str(default.get("PASSWORD") or ""),
    }


def _connect(dbname: str = "postgres") -> psycopg.Connection:
    return psycopg.connect(make_conninfo(**_server(), dbname=dbname), autocommit=True)


def scratch_database(tmp_path: Path, suffix: str) -> Iterator[ScratchDatabase]:
    default = settings.DATABASES["default"]
    if default["ENGINE"].endswith("sqlite3"):
        path = tmp_path / f"{suffix}.sqlite3"
        yield ScratchDatabase(url=f"sqlite:///{path}", vendor="sqlite", name=str(path))
        return
    name = f"{default['NAME']}_{suffix}"
    server = _server()
    with _connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    auth = f"{server['user']}:{server['password']}" if server["password"] else server["user"]
    try:
        yield ScratchDatabase(
            url=f"postgres://{auth}@{server['host']}:{server['port']}/{name}", vendor="postgresql", name=name
        )
    finally:
        with _connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def writing_rows(database: ScratchDatabase, process: subprocess.Popen[str]) -> bool:
    """True once `process` (an import) is inside its write transaction, past validation."""
    if database.vendor == "sqlite":
        # The import is the only connection, and the one before it checkpointed and removed
        # the write-ahead log on closing: a megabyte of log is the open transaction's pages
        # (other files the import writes, such as the embedding cache, do not count).
        wal = Path(f"{database.name}-wal")
        return wal.exists() and wal.stat().st_size > 1_000_000
    with _connect(database.name) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND xact_start IS NOT NULL"
            " AND pid <> pg_backend_pid() AND query ILIKE 'INSERT%%'",
            [database.name],
        ).fetchone()
        return bool(row and row[0])
