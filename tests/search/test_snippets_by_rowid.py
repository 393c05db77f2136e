"""The snippets of the cases the lexical ranking read are looked up by their full-text rows
(SQLite; PostgreSQL by case id as before): the same passages as looked up by case id,
and by case id still for a case the ranking did not read when the store cache is off (on,
the case columns hold its rowid: test_ranking_reads_case_columns.py)."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search.backends import get_backend
from incidents.search.planning import interpret
from incidents.search.ranking import lexical_rows
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query", ["watchdog allreduce", '"fabric switch"', "checkpoint -router"])
def test_snippets_by_rowid_are_the_snippets_by_case_id(import_synthetic, query):
    import_synthetic(*[synthetic_case(n) for n in range(30)])
    parsed = interpret(query)
    backend = get_backend()
    rows = lexical_rows(backend, parsed, Case.objects.published(), whole=True)
    ids = [row.case_id for row in rows[:20]]
    rowids = {row.case_id: row.rowid for row in rows if row.rowid is not None}
    by_case_id = backend.snippets(parsed, ids)
    assert by_case_id and backend.snippets(parsed, ids, rowids) == by_case_id
    # A case the ranking did not read (no row id known): looked up by case id, same answer.
    missing = {case_id: rowid for case_id, rowid in rowids.items() if case_id != ids[0]}
    assert backend.snippets(parsed, ids, missing) == by_case_id
