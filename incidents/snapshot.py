"""One consistent snapshot for a block of reads (`one_snapshot`): every statement inside it
sees the database as of the block's first read, whatever other connections commit meanwhile.

A reader that takes several statements (a backup: cases, vocabulary, editorial columns,
history) would otherwise see a write committed between two of them in the later ones only:
a history row of a case its case files do not hold.

- PostgreSQL: a REPEATABLE READ, READ ONLY transaction (one snapshot taken at its first
  statement; it holds no lock a row's writer waits for, and refuses any write inside it).
- SQLite: one deferred read transaction (`BEGIN`, then a read), which holds its WAL
  snapshot until it ends. Not the `BEGIN IMMEDIATE` of the settings' `transaction_mode`,
  which would take the write lock: writers go on while the block reads.

Inside a transaction already begun (a test's, or a caller's), that transaction is the
snapshot on SQLite; PostgreSQL's isolation level can no longer be set there, so the block
runs in it as it is (READ COMMITTED by default).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import DEFAULT_DB_ALIAS, connections, transaction


@contextlib.contextmanager
def one_snapshot(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """Run the block in one read transaction on `using` (see the module docstring); the
    transaction is rolled back or committed as `transaction.atomic` does (it wrote nothing)."""
    connection = connections[using]
    if connection.in_atomic_block:
        with transaction.atomic(using=using):
            yield
        return
    connection.ensure_connection()
    with contextlib.ExitStack() as stack:
        if connection.vendor == "sqlite":
            mode = connection.transaction_mode  # type: ignore[attr-defined]
            connection.transaction_mode = "DEFERRED"  # type: ignore[attr-defined]
            try:
                stack.enter_context(transaction.atomic(using=using))
            finally:
                connection.transaction_mode = mode  # type: ignore[attr-defined]
            with connection.cursor() as cursor:
                # A deferred transaction takes its snapshot at its first read: now.
                cursor.execute("SELECT count(*) FROM sqlite_master")
        else:
            stack.enter_context(transaction.atomic(using=using))
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield
