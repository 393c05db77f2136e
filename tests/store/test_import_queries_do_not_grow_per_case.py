"""Import writes a batch of cases with a fixed number of statements: the queries of an
import do not grow with the number of cases in it (before, each case cost a dozen)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db


def queries_to_import(tmp_path, numbers: range) -> int:
    folder = tmp_path / f"set{numbers.start}"
    folder.mkdir()
    with CaptureQueriesContext(connection) as captured:
        result = import_case_files(paths=write_cases(folder, [synthetic_case(n) for n in numbers]))
    assert len(result.created) == len(numbers)
    return len(captured.captured_queries)


def test_four_times_the_cases_cost_only_a_few_more_bulk_inserts(tmp_path):
    few = queries_to_import(tmp_path, range(100, 105))
    more = queries_to_import(tmp_path, range(200, 220))
    # The only growth is bulk inserts split by the database's limit on parameters per
    # statement (SQLite: 999, so about 200 term links or 90 neighbour rows per insert);
    # one statement per case per table would add at least 15 x 12 queries here.
    assert more - few <= 12, (few, more)
