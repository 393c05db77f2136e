"""An import writes new cases by plain `executemany` (`bulk_sql.insert_rows`), not
`bulk_create`: the stored columns must be what `bulk_create` stores, an integer count the
document gives as a float included, and the batch's cases carry distinct times of its
write."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.utils import timezone

from incidents.documents import case_document
from incidents.models import Case
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def stored_counts(case_id: str) -> tuple:
    """The count columns as the database holds them (no field conversion on the way out)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT accelerator_count, node_count, time_to_resolve_seconds FROM incidents_case WHERE id = %s",
            [case_id],
        )
        return cursor.fetchone()


def test_a_count_given_as_a_float_is_stored_as_an_integer(import_synthetic):
    environment = {**synthetic_case(1)["environment"], "accelerator_count": 512.0, "node_count": 64.0}
    [case_id] = import_synthetic(synthetic_case(1, environment=environment))
    counts = stored_counts(case_id)
    assert counts[:2] == (512, 64)
    assert all(type(value) is int for value in counts)
    document = case_document(Case.objects.with_document().get(id=case_id))
    assert document["environment"]["accelerator_count"] == 512
    assert type(document["environment"]["accelerator_count"]) is int


def test_the_cases_of_one_import_carry_distinct_times_of_its_write(import_synthetic):
    started = timezone.now()
    ids = import_synthetic(*(synthetic_case(n) for n in range(2, 6)))
    ended = timezone.now()
    stamps = list(Case.objects.filter(id__in=ids).order_by("id").values_list("modified", flat=True))
    # Distinct (the change feed pages by time), a microsecond apart in document order.
    assert stamps == sorted(set(stamps))
    assert [b - a for a, b in zip(stamps, stamps[1:], strict=False)] == [
        datetime.timedelta(microseconds=1)
    ] * 3
    assert started <= stamps[0] and stamps[-1] <= ended + datetime.timedelta(microseconds=len(ids))
    assert all(stamp.utcoffset() == datetime.timedelta(0) for stamp in stamps)


def raw_row(case_id: str) -> dict:
    """The case row as the database hands it over, no field conversion."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM incidents_case WHERE id = %s", [case_id])
        names = [column[0] for column in cursor.description]
        return dict(zip(names, cursor.fetchone(), strict=True))


def test_the_stored_form_is_what_bulk_create_stores(import_synthetic):
    [case_id] = import_synthetic(synthetic_case(8, occurred="2023-04-05"))
    clone = Case.objects.get(id=case_id)
    clone.id = "IL-999001"
    Case.objects.bulk_create([clone])
    imported, created = raw_row(case_id), raw_row("IL-999001")
    assert imported.keys() == created.keys()
    for column in imported:
        if column in ("id", "modified"):
            continue
        assert imported[column] == created[column], column
        assert type(imported[column]) is type(created[column]), column
    # The time differs; its stored form (text on SQLite, a timestamp on PostgreSQL) does not.
    assert type(imported["modified"]) is type(created["modified"])
    if isinstance(imported["modified"], str):
        assert len(imported["modified"]) == len(created["modified"])
        assert imported["modified"][:4].isdigit() and "+" not in imported["modified"]


def test_every_column_reads_back_as_written(import_synthetic):
    document = synthetic_case(7, occurred="2023-04-05")
    [case_id] = import_synthetic(document)
    case = Case.objects.get(id=case_id)
    assert case.published == datetime.date.fromisoformat(document["published"])
    assert case.occurred == datetime.date(2023, 4, 5)
    assert case.remediation == ["Restart the job."]
    assert case.time_to_resolve == document["facts"]["time_to_resolve"]
    assert case.time_to_resolve_seconds == int(document["facts"]["time_to_resolve"][2:-1]) * 60
    assert case.retraction_reason is None and case.merged_into_id is None
