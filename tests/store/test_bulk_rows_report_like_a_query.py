"""`bulk_sql.insert_rows` writes a batch in one statement's worth of work on each backend
(COPY on PostgreSQL, `executemany` on SQLite) and behaves like a query there: a duplicate
key raises Django's IntegrityError, nothing of the failed batch stays, and the write is
counted where Django counts queries (the import's query-count tests read that)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from incidents.bulk_sql import insert_rows
from incidents.models import Case, CaseKey
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


@pytest.fixture
def case_id(import_synthetic) -> str:
    [imported] = import_synthetic(synthetic_case(1))
    return imported


def keys_of(case_id: str) -> set[tuple[str, str]]:
    return set(CaseKey.objects.filter(case_id=case_id).values_list("kind", "key"))


def test_a_duplicate_key_raises_djangos_integrity_error_and_writes_nothing(case_id):
    before = keys_of(case_id)
    kind, key = next(iter(before))
    rows = [(case_id, "url", "https://example.org/new-1"), (case_id, kind, key)]
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows(CaseKey, ("case_id", "kind", "key"), rows)
    assert keys_of(case_id) == before


def test_one_batch_is_one_logged_query_whatever_its_rows(case_id):
    rows = [(case_id, "url", f"https://example.org/more-{n}") for n in range(50)]
    with CaptureQueriesContext(connection) as captured:
        written = insert_rows(CaseKey, ("case_id", "kind", "key"), rows)
    assert written == 50
    assert len(captured.captured_queries) == 1
    sql = captured.captured_queries[0]["sql"]
    assert ("COPY" if connection.vendor == "postgresql" else "INSERT INTO") in sql
    assert {(kind, key) for kind, key in keys_of(case_id) if key.startswith("https://example.org/more-")} == {
        ("url", f"https://example.org/more-{n}") for n in range(50)
    }
    assert Case.objects.filter(id=case_id).exists()


def test_no_rows_cost_no_statement(case_id):
    with CaptureQueriesContext(connection) as captured:
        assert insert_rows(CaseKey, ("case_id", "kind", "key"), []) == 0
        assert insert_rows(CaseKey, ("case_id", "kind", "key"), iter(())) == 0
    assert captured.captured_queries == []


def test_rows_may_come_from_a_query_running_while_they_are_written(case_id):
    """The rows are read before each COPY opens: a COPY holds the connection, and a rows
    iterable that queries it meanwhile (a queryset's iterator) would wait forever."""
    holding: list[bool] = []

    def rows():
        for n in range(3):
            locked = connection.vendor == "postgresql" and connection.connection.lock.locked()
            if connection.vendor == "postgresql":
                holding.append(locked)
            if not locked:  # a query now, with the connection held, would never return
                assert Case.objects.filter(id=case_id).exists()
            yield (case_id, "url", f"https://example.org/streamed-{n}")

    assert insert_rows(CaseKey, ("case_id", "kind", "key"), rows()) == 3
    assert holding == ([False] * 3 if connection.vendor == "postgresql" else [])
    assert {key for _, key in keys_of(case_id) if "streamed" in key} == {
        f"https://example.org/streamed-{n}" for n in range(3)
    }
