"""Plain `executemany` inserts for the import's large tables.

`QuerySet.bulk_create` builds a model object per row, runs every field's `pre_save` and
renders one statement with a placeholder per value: at 10,000 cases (150,000 term links,
100,000 neighbour rows, 10,000 history rows) that was most of the write time. Here rows
are tuples; only the fields whose database form differs from the Python value (JSON,
dates and times) are converted, by the field itself, so both backends store exactly what
`bulk_create` would (an integer column takes an integer-valued float, 512.0, as the
integer on both). No `pre_save` runs (an `auto_now` field takes the value given) and no
signals are sent (bulk_create sends none either).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, models

# Rows per executemany call: bounds the memory of one round of converted rows.
CHUNK = 2000


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Insert `rows` (tuples in `columns` order; `columns` are attnames such as `case_id`)
    into `model`'s table. Returns rows written. Raises the database's IntegrityError as
    `bulk_create` would."""
    by_attname = {field.attname: field for field in model._meta.concrete_fields}
    fields = [by_attname[column] for column in columns]
    convert = [
        (i, field)
        for i, field in enumerate(fields)
        if isinstance(field, models.JSONField | models.DateTimeField | models.DateField)
    ]
    quote = connection.ops.quote_name
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        quote(model._meta.db_table),
        ", ".join(quote(field.column) for field in fields),
        ", ".join(["%s"] * len(fields)),
    )
    written = 0
    chunk: list[list[Any]] = []
    with connection.cursor() as cursor:
        for row in rows:
            values = list(row)
            for i, field in convert:
                values[i] = field.get_db_prep_save(values[i], connection)
            chunk.append(values)
            if len(chunk) >= CHUNK:
                cursor.executemany(sql, chunk)
                written += len(chunk)
                chunk = []
        if chunk:
            cursor.executemany(sql, chunk)
            written += len(chunk)
    return written
