"""A large index write on PostgreSQL computes its rows' vectors on a second connection
while the import goes on (`search.pg_vectors`): the rows stored are the rows the in-line
statement stores (a vector's text lists every lexeme with its positions and weights), in batches, in order. On
SQLite the writer is the plain write; the same comparison holds."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection

from incidents.models import Term
from incidents.search import pg_vectors
from incidents.search.backends import POSTGRES_TABLE, SQLITE_TABLE, get_backend
from incidents.search.text import cases_for_index, index_columns
from tests.conftest import fixture_ids

pytestmark = pytest.mark.django_db


def stored_rows(ids: list[str]) -> dict[str, tuple]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"SELECT case_id, body, vector::text FROM {POSTGRES_TABLE} WHERE case_id = ANY(%s)", [ids]
            )
        else:
            marks = ", ".join(["%s"] * len(ids))
            cursor.execute(
                f"SELECT case_id, title, tags, main, rest FROM {SQLITE_TABLE} WHERE case_id IN ({marks})", ids
            )
        return {row[0]: row[1:] for row in cursor.fetchall()}


def test_rows_written_beside_the_import_are_the_rows_written_in_line(monkeypatch):
    ids = fixture_ids()
    in_line = stored_rows(ids)  # the session's import wrote them in line (fewer than PARALLEL_FROM)
    assert sorted(in_line) == ids
    rows = [(case.id, index_columns(case)) for case in cases_for_index(ids, Term.objects.in_bulk())]
    backend = get_backend()
    backend.delete(ids)
    assert stored_rows(ids) == {}
    monkeypatch.setattr(pg_vectors, "PARALLEL_FROM", 1)
    with backend.writer(len(rows)) as write:
        for start in range(0, len(rows), 40):
            write(rows[start : start + 40])
    assert stored_rows(ids) == in_line


def test_an_error_on_the_second_connection_fails_the_write(monkeypatch):
    """On PostgreSQL a failing vector statement fails the write; SQLite never sends one (a
    broken statement leaves its write whole)."""
    ids = fixture_ids()[:3]
    rows = [(case.id, index_columns(case)) for case in cases_for_index(ids, Term.objects.in_bulk())]
    monkeypatch.setattr(pg_vectors, "PARALLEL_FROM", 1)
    monkeypatch.setattr(pg_vectors, "vectors_sql", lambda vector: "SELECT no_such_function(%s, %s, %s, %s)")
    backend = get_backend()
    if connection.vendor != "postgresql":
        before = stored_rows(ids)
        backend.delete(ids)
        with backend.writer(len(rows)) as write:
            write(rows)
        assert stored_rows(ids) == before
        return
    with pytest.raises(DatabaseError, match="no_such_function"):
        with backend.writer(len(rows)) as write:
            write(rows)
