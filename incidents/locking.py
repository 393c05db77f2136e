"""One writer at a time: imports and edits of the case store run one after another.

Two imports of overlapping cases at once must end as if one ran after the other, never
with a unique-key error half-way or a case planned as "new" by both. Call
`serialize_case_writes()` first thing inside the write transaction:

- PostgreSQL: a transaction-scoped advisory lock; the second writer waits for the first to
  commit or roll back, then plans against what is stored by then.
- SQLite: the transaction already begins IMMEDIATE (settings), which takes the database's
  write lock at BEGIN; the second writer waits up to the connection's `timeout`.
"""

from __future__ import annotations

from django.db import connection

# Any constant works; this one spells "incidentlib case writes" loosely and is unlikely to
# collide with another application's advisory locks on a shared server.
CASE_WRITE_LOCK_KEY = 0x1C1DE17


def serialize_case_writes() -> None:
    """Block until no other transaction is writing cases (inside an atomic block)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CASE_WRITE_LOCK_KEY])
