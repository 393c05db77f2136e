"""An import writes new cases by plain `executemany` (`bulk_sql.insert_rows`), not
`bulk_create`: the stored columns must be what `bulk_create` stored, an integer count the
document gives as a float included, and the batch's cases carry its write time."""

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


def test_the_cases_of_one_import_carry_its_write_time(import_synthetic):
    started = timezone.now()
    ids = import_synthetic(*(synthetic_case(n) for n in range(2, 6)))
    ended = timezone.now()
    stamps = set(Case.objects.filter(id__in=ids).values_list("modified", flat=True))
    assert len(stamps) == 1  # one write batch, one time
    [stamp] = stamps
    assert started <= stamp <= ended
    assert stamp.tzinfo is not None and stamp.utcoffset() == datetime.timedelta(0)


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
