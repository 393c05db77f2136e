"""The case id of a full-text match is read without reading the match's texts, and a case's
rows are found by its id (SQLite: the indexes of migration 0018 on FTS5's content table;
a phrase in 47,000 of 100,000 cases took 125 ms through the rows, 18 ms through the index).
Log matching reads a found term's cases by term, keeping the published ones in Python. The
answers stay those of the plain reads on both backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import connection

from incidents.models import Case, Term
from incidents.search import search_cases
from incidents.search.backends import get_backend
from incidents.search.logmatch import read_log
from incidents.search.query import Atom
from incidents.selectors import CaseFilters

pytestmark = pytest.mark.django_db

EVAL = Path(__file__).resolve().parents[2] / "eval"


def _plan(sql: str, params: list) -> str:
    """SQLite's query plan of `sql` (Django's %s placeholders) as one string."""
    rows = connection.connection.execute("EXPLAIN QUERY PLAN " + sql.replace("%s", "?"), params)
    return "\n".join(row[-1] for row in rows.fetchall())


def _sql_of(run, marker: str) -> tuple[str, list]:
    """The SQL and parameters of the first query holding `marker` that `run()` runs."""
    seen: list[tuple[str, list]] = []

    def remember(execute, sql, params, many, context):
        if marker in sql:
            seen.append((sql, list(params)))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(remember):
        run()
    assert seen, f"no query holding {marker!r} ran"
    return seen[0]


def _ranking_sql(query: str) -> tuple[str, list]:
    """The SQL and parameters the lexical ranking of `query` runs."""
    return _sql_of(lambda: search_cases(query=query), "bm25(")


def test_a_match_reads_its_case_id_from_the_key_index():
    connection.ensure_connection()
    backend = get_backend()
    sql, params = backend.match_sql([Atom(("watchdog", "timeout"))])
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = {row[0] for row in cursor.fetchall()}
    assert len(found) >= 3
    if connection.vendor != "sqlite":
        return  # PostgreSQL's search table holds the case id as its key: no join to avoid
    with connection.cursor() as cursor:
        cursor.execute("SELECT case_id FROM incidents_case_fts WHERE incidents_case_fts MATCH %s", params)
        assert found == {row[0] for row in cursor.fetchall()}
    plan = _plan(sql, params)
    assert "COVERING INDEX incidents_case_fts_rowid_case" in plan
    ranking = _plan(*_ranking_sql("nccl timeout"))
    # Matches, then their keys from the index, then their cases by id: never every case
    # for each match.
    assert "SEARCH k USING COVERING INDEX incidents_case_fts_rowid_case (id=?)" in ranking
    assert "SEARCH c USING COVERING INDEX incidents_case_status_ranked (status=? AND id=?)" in ranking
    # The same order when a match's cases are joined to their status (log matching's
    # look-ups): `+k.c0` keeps the case join from becoming a constraint on the key index.
    backend = get_backend()
    capped = _plan(*_sql_of(lambda: backend.capped_atom_hits([Atom(("Xid", "79"))], 5), "MATCH"))
    assert "SEARCH k USING COVERING INDEX incidents_case_fts_rowid_case (id=?)" in capped
    assert "(status=? AND id=?)" in capped


def test_a_case_row_is_deleted_by_its_id_alone():
    backend = get_backend()
    before = backend.indexed_ids()
    assert set(Case.objects.values_list("id", flat=True)) == before
    assert search_cases(query='"py-spy"').total > 0
    with_py_spy = {hit.case.id for hit in search_cases(query='"py-spy"', limit=50).hits}
    gone = sorted(with_py_spy)[0]
    backend.delete([gone])
    assert backend.indexed_ids() == before - {gone}
    assert gone not in {hit.case.id for hit in search_cases(query='"py-spy"', limit=50).hits}
    if connection.vendor == "sqlite":
        other = sorted(with_py_spy)[1]
        plan = _plan(*_sql_of(lambda: backend.delete([other]), "DELETE"))
        assert "COVERING INDEX incidents_case_fts_case (c0=?)" in plan
        assert backend.indexed_ids() == before - {gone, other}


def test_log_matching_never_names_a_case_that_is_not_published():
    logs = [item for item in json.loads((EVAL / "logs.json").read_text())["logs"] if item["relevant"]]
    checked = 0
    for item in logs[:6]:
        text = (EVAL / item["file"]).read_text()
        first = read_log(text).hits[0].case.id
        assert first in item["relevant"]
        Case.objects.filter(id=first).update(status=Case.Status.RETRACTED)
        assert first not in {hit.case.id for hit in read_log(text).hits}
        Case.objects.filter(id=first).update(status=Case.Status.PUBLISHED)
        checked += 1
    assert checked == 6
    if connection.vendor == "sqlite":
        # The found terms' cases are read by term: asked for published cases, SQLite read
        # every published case and looked each up.
        text = (EVAL / logs[0]["file"]).read_text()
        plan = _plan(*_sql_of(lambda: read_log(text), 'AS "case__status"'))
        assert plan.startswith("SEARCH incidents_caseterm USING INDEX incidents_caseterm_term_id")


def test_a_filtered_ranking_tests_each_match_against_the_allowed_cases():
    term = Term.objects.get(facet="symptom", slug="nccl-timeout")
    allowed = set(Case.objects.filter(terms=term, status=Case.Status.PUBLISHED).values_list("id", flat=True))
    only_allowed = CaseFilters(include={"symptom": (term.slug,)})
    everything = search_cases(query="nccl timeout", limit=200)
    filtered = search_cases(query="nccl timeout", filters=only_allowed, limit=200)
    # The filter keeps exactly the allowed matches (their order is the filtered ranking's).
    kept = {hit.case.id for hit in everything.hits if hit.case.id in allowed}
    assert len(kept) >= 3
    assert {hit.case.id for hit in filtered.hits} == kept
    if connection.vendor != "sqlite":
        return  # PostgreSQL's search rows hold the case id: the filter is a join on it
    plan = _plan(
        *_sql_of(
            lambda: search_cases(query="nccl timeout", filters=only_allowed),
            "bm25(",
        )
    )
    # Each match's key is read by its rowid and its case id then looked up in the allowed
    # list: as a constraint on the (id, c0) index, SQLite probed the index once per allowed
    # case for every match (75 s for `xid 79` with a symptom filter at 100,000 cases).
    assert "SEARCH k USING COVERING INDEX incidents_case_fts_rowid_case (id=?)" in plan
    assert "(id=? AND c0=?" not in plan
