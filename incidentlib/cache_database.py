"""The database cache in an SQLite file of its own, beside the case database.

The default install (SQLite, no `CACHE_URL`) keeps Django's database cache, and with it the
API's rate-limit counts that every API request writes. In the case database's file those
writes would queue behind an import, which holds the file's only write lock for its whole
transaction: Django's cache waits, then drops the write (the limits fail open while the
requests stall). A second file has a write lock of its own that only cache writes take.
Every worker process opens the same file, so the counts stay per client, not per worker.

It needs no setup: each new connection creates the cache table when it is missing (the
DDL `createcachetable` writes, run from `init_command`), so a fresh machine, an existing
install, a scratch database in a test and a deleted file all work without a command. The
file holds nothing worth a backup. `incidentlib/db_router.py` sends the cache there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CACHE_ALIAS = "cache"
# Seconds a cache write waits for another process's cache write (each a few statements).
CACHE_WRITE_TIMEOUT = 10


def cache_file_for(case_file: str) -> Path:
    """`var/incidentlib.sqlite3` -> `var/incidentlib.cache.sqlite3`."""
    path = Path(case_file)
    return path.with_name(f"{path.stem}.cache{path.suffix or '.sqlite3'}")


def create_table_statements(table: str) -> list[str]:
    """`createcachetable`'s DDL for SQLite, made safe to run on every connection."""
    return [
        f'CREATE TABLE IF NOT EXISTS "{table}" ("cache_key" varchar(255) NOT NULL PRIMARY KEY,'
        ' "value" text NOT NULL, "expires" datetime NOT NULL)',
        f'CREATE INDEX IF NOT EXISTS "{table}_expires" ON "{table}" ("expires")',
    ]


def sqlite_cache_database(case_file: str, table: str) -> dict[str, Any]:
    """The `DATABASES` entry of the cache's own file (WAL, as the case database)."""
    statements = ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", *create_table_statements(table)]
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(cache_file_for(case_file)),
        "OPTIONS": {
            # A cache write reads, then writes: take the write lock at BEGIN, so that two
            # workers' writes queue (for `timeout`) instead of one failing on the upgrade.
            "transaction_mode": "IMMEDIATE",
            "timeout": CACHE_WRITE_TIMEOUT,
            "init_command": "; ".join(statements),
        },
        "CONN_HEALTH_CHECKS": True,
    }
