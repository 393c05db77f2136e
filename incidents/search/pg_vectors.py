"""PostgreSQL: the index rows' tsvectors computed beside the import, on a connection of
their own.

`to_tsvector` (four weighted columns a row) is most of what PostgreSQL does to write an
index row: at 10,000 cases about two fifths of the database's time in an import, while
the import's own process waited for each batch. It depends on its text and the stored
text search configuration only, so another connection can compute it: a thread sends
each batch there as soon as its columns are known and the import goes on (reading and
profiling the next batches on the other core); the rows are then written on the import's
connection with the vectors as computed, in the import's transaction. The stored vector is
the same value (`tsvector` text output reads back as the vector it came from: compared
row by row in tests/search/test_parallel_vectors.py).

Used for large writes only (`PARALLEL_FROM` rows): a connection and a thread cost more
than they save for an edit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.db import connection

if TYPE_CHECKING:
    import psycopg

# Index rows written at once from which the vectors are computed on a second connection.
PARALLEL_FROM = 2000

Rows = list[tuple[str, str, str, str, str, str]]  # case id, body, then the four column texts


def vectors_sql(vector: Callable[[list[str]], str]) -> str:
    """The statement computing the vectors of a batch, in the batch's order, as text: the
    four column texts given as arrays; `vector` builds the expression from column names."""
    return (
        f"SELECT ({vector(['a', 'b', 'c', 'd'])})::text"
        " FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[]) WITH ORDINALITY AS t(a, b, c, d, n)"
        " ORDER BY n"
    )


class Vectors:
    """Computes batches' vectors in a thread on a connection of its own (autocommit, the
    import's connection parameters); `submit` returns the future of one batch's vectors."""

    def __init__(self, sql: str):
        self._sql = sql
        # Read here: `connection` in the thread would be that thread's own.
        self._parameters = connection.get_connection_params()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="index-vectors")
        self._connection: psycopg.Connection[Any] | None = None

    def submit(self, rows: Rows) -> Future[list[str]]:
        columns = [[row[i] for row in rows] for i in range(2, 6)]
        return self._pool.submit(self._compute, columns)

    def _compute(self, columns: list[list[str]]) -> list[str]:
        if self._connection is None:
            import psycopg  # here: a process on SQLite does not load it (start-up time)

            self._connection = psycopg.connect(**self._parameters, autocommit=True)
        with self._connection.cursor() as cursor:
            cursor.execute(self._sql, columns)
            return [row[0] for row in cursor.fetchall()]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._connection is not None:
            self._connection.close()


@contextmanager
def parallel_writer(sql: str, write: Callable[[Rows, list[str]], None]) -> Iterator[Callable[[Rows], None]]:
    """A function taking batches of rows; each batch's vectors are computed by `Vectors`
    while the caller goes on, and the batch is written by `write(rows, vectors)` once the
    next batch comes (or when the block ends), in order. An error computing them is raised
    here (the caller's transaction then rolls back); the connection is closed either way."""
    vectors = Vectors(sql)
    pending: list[tuple[Rows, Future[list[str]]]] = []

    def flush(keep: int) -> None:
        while len(pending) > keep:
            rows, future = pending.pop(0)
            with connection.wrap_database_errors:
                computed = future.result()
            write(rows, computed)

    def add(rows: Rows) -> None:
        if rows:
            pending.append((rows, vectors.submit(rows)))
            flush(keep=1)

    try:
        yield add
        flush(keep=0)
    finally:
        vectors.close()
