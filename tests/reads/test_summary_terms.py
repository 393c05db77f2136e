"""`Case.objects.with_summary()` attaches each case's terms as plain term objects
(`models.attach_terms`): the same terms in the same order as the link rows, one object per
term however many cases carry it, in one query, whatever way the queryset is read."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.models import TERM_DETAIL, Case, CaseTerm, Facet

pytestmark = pytest.mark.django_db


def _terms_by_link_rows(case_ids: list[str]) -> dict[str, list[int]]:
    """Each case's term ids read straight from the link rows, in link order."""
    found: dict[str, list[int]] = {case_id: [] for case_id in case_ids}
    links = CaseTerm.objects.filter(case_id__in=case_ids).order_by("case_id", "position")
    for case_id, term_id in links.values_list("case_id", "term_id"):
        found[case_id].append(term_id)
    return found


def test_each_case_gets_its_terms_in_link_order_in_one_query():
    ids = list(Case.objects.published().order_by("id").values_list("id", flat=True)[:30])
    with CaptureQueriesContext(connection) as queries:
        cases = list(Case.objects.filter(id__in=ids).with_summary().order_by("id"))
    assert len(queries) == 2  # the cases with their root cause (a join), then every term link
    expected = _terms_by_link_rows(ids)
    assert [case.id for case in cases] == ids
    for case in cases:
        assert case.linked_terms is not None
        assert [term.id for term in case.linked_terms] == expected[case.id]
        assert len(case.linked_terms) >= 3  # every fixture case has topics, symptoms and a cause
    with CaptureQueriesContext(connection) as queries:
        by_facet = {case.id: [t.name for t in case.terms_of(Facet.SYMPTOM)] for case in cases}
    assert len(queries) == 0
    for case in cases:
        stored = CaseTerm.objects.filter(case=case, term__facet=Facet.SYMPTOM).order_by("position")
        assert by_facet[case.id] == [link.term.name for link in stored]


def test_a_term_carried_by_many_cases_is_built_once_without_its_detail():
    cases = list(Case.objects.published().with_summary().order_by("id")[:40])
    by_id: dict[int, set[int]] = {}
    for case in cases:
        for term in case.linked_terms:
            by_id.setdefault(term.id, set()).add(id(term))
    assert all(len(objects) == 1 for objects in by_id.values())  # one object per term
    carried_by_many = [
        term_id for term_id in by_id if sum(term_id in {t.id for t in c.linked_terms} for c in cases) > 1
    ]
    assert carried_by_many  # the training topic, NCCL, ...
    first = cases[0].linked_terms
    assert first is not None
    term = first[0]
    assert set(TERM_DETAIL) <= term.get_deferred_fields()
    assert term.name and term.slug and term.facet


def test_in_bulk_and_slices_attach_terms_and_values_rows_are_left_alone():
    ids = list(Case.objects.published().order_by("id").values_list("id", flat=True)[:5])
    expected = _terms_by_link_rows(ids)
    found = Case.objects.filter(id__in=ids).with_summary().in_bulk()
    assert {case_id: [t.id for t in case.linked_terms] for case_id, case in found.items()} == expected
    page = list(Case.objects.filter(id__in=ids).with_summary().order_by("id")[1:3])
    assert [[t.id for t in case.linked_terms] for case in page] == [expected[ids[1]], expected[ids[2]]]
    assert (
        list(Case.objects.filter(id__in=ids).with_summary().order_by("id").values_list("id", flat=True))
        == ids
    )


def test_an_empty_page_reads_no_terms():
    with CaptureQueriesContext(connection) as queries:
        assert list(Case.objects.filter(id="IL-0000").with_summary()) == []
    assert len(queries) == 1  # no term query for an empty page
