"""Facet filters join case links by term: PostgreSQL's planner must know how many cases
each term has, or a rare topic is taken for a common one and a filtered list walks every
case (migration 0021)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Count

from incidents.models import CaseTerm, Term

pytestmark = pytest.mark.django_db


def _estimated_rows(term_id: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN (FORMAT JSON) SELECT case_id FROM incidents_caseterm WHERE term_id = %s", [term_id]
        )
        return int(cursor.fetchone()[0][0]["Plan"]["Plan Rows"])


def test_every_term_of_the_vocabulary_fits_the_term_statistics():
    terms = Term.objects.count()
    if connection.vendor != "postgresql":
        # SQLite plans these joins from its indexes alone (no ANALYZE is run).
        assert terms > 0
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstattarget FROM pg_attribute"
            " WHERE attrelid = 'incidents_caseterm'::regclass AND attname = 'term_id'"
        )
        target = cursor.fetchone()[0]
        cursor.execute("ANALYZE incidents_caseterm")
    # A most-common-values list holds up to `target` values: room for every term (the
    # default, -1, means the server default of 100).
    assert target >= terms
    # The term linked to the fewest cases: the kind the default target left to a guess.
    rarest = (
        CaseTerm.objects.values("term_id").annotate(links=Count("id")).order_by("links", "term_id").first()
    )
    assert rarest is not None
    assert _estimated_rows(rarest["term_id"]) == rarest["links"]
