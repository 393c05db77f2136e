"""Root causes are case-term rows like every other facet (issue 9.5); the foreign key stays
for display and always agrees with the row."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from incidents.models import Case, CaseTerm, Facet, Term
from incidents.selectors import parse_filters, terms_with_counts, vocabulary
from incidents.selectors.facets import filter_cases

pytestmark = pytest.mark.django_db

migration = importlib.import_module("incidents.migrations.0003_root_cause_term_rows")


def root_cause_rows() -> set[tuple[str, int]]:
    return set(CaseTerm.objects.filter(term__facet=Facet.ROOT_CAUSE).values_list("case_id", "term_id"))


def test_every_case_has_one_root_cause_row_matching_its_foreign_key():
    assert root_cause_rows() == set(Case.objects.values_list("id", "root_cause_category_id"))


def test_the_migration_adds_the_rows_for_cases_stored_before_it_and_can_run_twice():
    expected = root_cause_rows()
    CaseTerm.objects.filter(term__facet=Facet.ROOT_CAUSE).delete()
    migration.add_root_cause_rows(apps, None)
    migration.add_root_cause_rows(apps, None)
    assert root_cause_rows() == expected
    # Appended after the case's other terms, so their order is unchanged.
    link = CaseTerm.objects.filter(case_id="IL-0428").order_by("position").last()
    assert link.term.facet == Facet.ROOT_CAUSE


def test_root_cause_counts_and_filters_read_the_rows_like_other_facets():
    published = Case.objects.published()
    by_key = {t.slug: n for t, n in terms_with_counts(Facet.ROOT_CAUSE, published.values("id"))}
    for term in Term.objects.of(Facet.ROOT_CAUSE):
        with_fk = published.filter(root_cause_category=term).count()
        assert by_key.get(term.slug, 0) == with_fk, term.slug
        filters, _ = parse_filters({"root_cause": term.slug})
        assert filter_cases(published, filters).count() == with_fk
    counted = {t.slug: t.case_count for t in vocabulary(Facet.ROOT_CAUSE)}
    assert counted == {
        t.slug: published.filter(root_cause_category=t).count() for t in Term.objects.of(Facet.ROOT_CAUSE)
    }
