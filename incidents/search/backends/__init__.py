"""The two full-text backends: SQLite FTS5 (`sqlite.py`) and PostgreSQL's weighted
tsvector (`postgres.py`), behind one interface (`base.Backend`), ranking with the same term
boost and page bound (`ranking_sql.py`).

Both index the same four columns (`text.IndexColumns`) and take the same `ParsedQuery`;
each turns the query into its own syntax from plain words, so no user text reaches
`MATCH` or `to_tsquery` unquoted. Rows are written by `index.py` when cases are imported.
"""

from __future__ import annotations

from django.db import connection

from .base import COMPOUND_LIMIT, PUBLISHED, Backend, Marked, RankedRow, any_word_of
from .postgres import POSTGRES_TABLE, SATURATION, PostgresBackend
from .sqlite import SPLIT_FROM, SQLITE_TABLE, SqliteBackend, atom_digest

__all__ = [
    "COMPOUND_LIMIT",
    "POSTGRES_TABLE",
    "PUBLISHED",
    "SATURATION",
    "SPLIT_FROM",
    "SQLITE_TABLE",
    "Backend",
    "Marked",
    "PostgresBackend",
    "RankedRow",
    "SqliteBackend",
    "any_word_of",
    "atom_digest",
    "get_backend",
]


_BACKENDS = {"sqlite": SqliteBackend(), "postgresql": PostgresBackend()}


def get_backend(vendor: str | None = None) -> Backend:
    """The backend for `vendor` (default: the default connection's)."""
    vendor = vendor or connection.vendor
    try:
        return _BACKENDS[vendor]
    except KeyError:
        raise NotImplementedError(f"search supports SQLite and PostgreSQL, not {vendor}") from None
