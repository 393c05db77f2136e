"""Searching every published case, the lexical ranking checks each match's case row
instead of matching its id against the published ids: the same rows, scores and shares."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search.backends import get_backend
from incidents.search.planning import interpret
from incidents.search.ranking import lexical_rows
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


QUERIES = ["watchdog allreduce", "checkpoint shard latency -router", '"fabric switch"']


@pytest.mark.parametrize("query", QUERIES)
def test_every_published_case_ranks_as_the_published_subquery(import_synthetic, query):
    ids = import_synthetic(*[synthetic_case(n) for n in range(30)])
    # Cases still in the full-text index but no longer published must stay out either way.
    Case.objects.filter(id__in=ids[:10]).update(status=Case.Status.RETRACTED)
    parsed = interpret(query)
    backend = get_backend()
    published = Case.objects.published()
    whole = lexical_rows(backend, parsed, published, whole=True)
    subquery = lexical_rows(backend, parsed, published)
    assert whole == subquery
    assert whole and not {row.case_id for row in whole} & set(ids[:10])
    # ... which the words do match: a ranking of every case, retracted ones too, has some.
    assert {row.case_id for row in lexical_rows(backend, parsed, Case.objects.all())} & set(ids[:10])
