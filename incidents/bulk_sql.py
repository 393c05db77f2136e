"""Bulk inserts for the import's large tables: `executemany` on SQLite, COPY on PostgreSQL.

`QuerySet.bulk_create` builds a model object per row, runs every field's `pre_save` and
renders one statement with a placeholder per value: at 10,000 cases (150,000 term links,
100,000 neighbour rows, 10,000 history rows) that was most of the write time. Here rows
are tuples; only the fields whose database form differs from the Python value (JSON,
dates and times) are converted, by the field itself, so both backends store exactly what
`bulk_create` would (an integer column takes an integer-valued float, 512.0, as the
integer on both). No `pre_save` runs (an `auto_now` field takes the value given) and no
signals are sent (bulk_create sends none either).

Rows are written `CHUNK` at a time; on PostgreSQL through `COPY ... FROM STDIN` (psycopg's
`Cursor.copy`): an `executemany` there still runs one statement per row (at 10,000 cases the
150,000 term links took 3.1 s of a 25 s import), where COPY streams them in one.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

import orjson
from django.db import connection, connections, models
from django.db.utils import DEFAULT_DB_ALIAS

# Rows per statement (executemany or COPY): bounds the memory of one round of converted rows.
CHUNK = 2000


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Insert `rows` (tuples in `columns` order; `columns` are attnames such as `case_id`)
    into `model`'s table. Returns rows written. Raises the database's IntegrityError as
    `bulk_create` would."""
    by_attname = {field.attname: field for field in model._meta.concrete_fields}
    fields = [by_attname[column] for column in columns]
    # The connection itself, not the `django.db.connection` proxy: the proxy looks the
    # connection up in an asgiref Local on every attribute read, and the fields read it for
    # each value they convert (a tenth of a first import's write time).
    database = connections[DEFAULT_DB_ALIAS]
    postgres = database.vendor == "postgresql"
    convert: list[tuple[int, _Converter]] = [
        (i, _AsJsonText(field, postgres=postgres) if _plain_json(field) else field)
        for i, field in enumerate(fields)
        if isinstance(field, models.JSONField | models.DateTimeField | models.DateField)
    ]
    # An INSERT's parameter is cast to the column; COPY reads `512.0` as text and refuses it.
    integers = (
        [i for i, field in enumerate(fields) if isinstance(field, models.IntegerField)] if postgres else []
    )
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    names = ", ".join(quote(field.column) for field in fields)
    copy = f"COPY {table} ({names}) FROM STDIN"
    insert = f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(fields))})"
    written = 0
    for chunk in _chunks(rows, convert, integers, database):
        if postgres:
            _copy(copy, chunk)
        else:
            with connection.cursor() as cursor:
                cursor.executemany(insert, chunk)
        written += len(chunk)
    return written


class _Converter(Protocol):
    def get_db_prep_save(self, value: Any, connection: Any) -> Any: ...


def _plain_json(field: models.Field[Any, Any]) -> bool:
    return isinstance(field, models.JSONField) and field.encoder is None


class _AsJsonText:
    """A JSONField without an encoder, its values written as JSON text without Django's
    layers per value (a tenth of a first import: history documents, profile word counts).
    SQLite stores the text: `json.dumps`'s, as Django writes it. PostgreSQL parses it into
    jsonb: orjson's, in C, the same value (jsonb keeps no spacing or escapes). A value
    orjson cannot write as `json.dumps` would (an integer past 64 bits, a date, any other
    object) goes to the field itself, which writes it or raises as it did. The exception is a
    float NaN or infinity: orjson writes null on PostgreSQL where Django would raise."""

    def __init__(self, field: models.Field[Any, Any], *, postgres: bool):
        self.field = field
        self.postgres = postgres

    def get_db_prep_save(self, value: Any, connection: Any) -> Any:
        if value is None:
            return self.field.get_db_prep_save(value, connection)
        try:
            if self.postgres:
                return orjson.dumps(value, option=_PASS_THROUGH).decode()
            return json.dumps(value)
        except TypeError:
            return self.field.get_db_prep_save(value, connection)


# What orjson would write where `json.dumps` raises: handed to the field instead.
_PASS_THROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _chunks(
    rows: Iterable[Sequence[Any]], convert: list[tuple[int, _Converter]], integers: list[int], database: Any
) -> Iterator[Sequence[Sequence[Any]]]:
    """`rows` converted for the database, `CHUNK` at a time, each chunk read whole before it
    is written: while a COPY runs it holds the connection, so a `rows` that queries (a
    queryset's iterator) would wait on it forever. The values at `integers` that are
    integer-valued floats become integers. `database`: the connection the fields convert for."""
    iterator = iter(rows)
    if not convert and not integers:
        # Nothing to convert (term links, sources and keys on SQLite): the rows as given,
        # without a call per row (150,000 rows at 10,000 cases).
        while plain := list(itertools.islice(iterator, CHUNK)):
            yield plain
        return
    while chunk := [
        _converted(row, convert, integers, database) for row in itertools.islice(iterator, CHUNK)
    ]:
        yield chunk


def _converted(
    row: Sequence[Any], convert: list[tuple[int, _Converter]], integers: list[int], database: Any
) -> list[Any]:
    values = list(row)
    for i, field in convert:
        values[i] = field.get_db_prep_save(values[i], database)
    for i in integers:
        if isinstance(values[i], float) and values[i].is_integer():
            values[i] = int(values[i])
    return values


def _copy(sql: str, chunk: Sequence[Sequence[Any]]) -> None:
    """One COPY of `chunk` on PostgreSQL, its errors raised as Django's (IntegrityError for a
    duplicate key). Django's debug cursor logs it as one query (`CursorDebugWrapper.copy`)."""
    with connection.cursor() as cursor, connection.wrap_database_errors:
        with cursor.copy(sql) as copy:
            for values in chunk:
                copy.write_row(values)
