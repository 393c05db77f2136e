"""The ranking reads every match's vector: PostgreSQL keeps it in the row (STORAGE MAIN,
migration 0019), where it was moved to the TOAST table and cost a look-up per match."""

from __future__ import annotations

import random

import pytest
from django.db import connection

from incidents.search import search_cases
from incidents.search.backends import POSTGRES_TABLE, get_backend
from incidents.search.text import IndexColumns
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def _distinct_words(count: int) -> str:
    rng = random.Random(7)
    letters = "bcdfghjklmnpqrstvwxz"
    return " ".join("".join(rng.choice(letters) for _ in range(9)) for _ in range(count))


def test_a_case_longer_than_a_page_of_text_is_found_by_its_last_words(import_synthetic):
    tail = "the quokka controller finally lost its leader"
    summary = f"{_distinct_words(1500)} {tail}"
    import_synthetic(synthetic_case(31, summary=summary))
    assert [hit.case.id for hit in search_cases(query=f'"{tail}"').hits] == ["IL-900031"]


def test_postgres_writes_a_long_vector_into_its_row():
    if connection.vendor != "postgresql":
        # SQLite's FTS5 keeps its own b-trees: nothing of a row goes out of line.
        assert get_backend().vendor == "sqlite"
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.attstorage, c.reltoastrelid::regclass::text FROM pg_attribute a"
            " JOIN pg_class c ON c.oid = a.attrelid WHERE a.attrelid = %s::regclass AND a.attname = 'vector'",
            [POSTGRES_TABLE],
        )
        storage, toast = cursor.fetchone()
        cursor.execute(f"SELECT count(*) FROM {toast}")
        chunks_before = cursor.fetchone()[0]
    # 300 distinct words in the tags (not in the body, which snippets read and which may go
    # out of line): a vector of about 5 KB, past the 2 KB TOAST threshold, that compresses
    # badly. In its row it fills no TOAST chunk; out of line it would.
    words = _distinct_words(300)
    get_backend().write([("IL-900032", IndexColumns(title="short", tags=words, main="body", rest=""))])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {toast}")
        chunks_after = cursor.fetchone()[0]
        cursor.execute(f"SELECT length(vector) FROM {POSTGRES_TABLE} WHERE case_id = 'IL-900032'")
        lexemes = cursor.fetchone()[0]
    assert storage == "m"
    assert lexemes == 302
    assert chunks_after == chunks_before
