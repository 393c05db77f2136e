"""The case store's reads cost a fixed number of queries whatever the number of cases.

Pages pin their own counts (tests/web/test_query_counts.py), the JSON API its own
(tests/api/test_query_counts.py); here the selectors they are built on are counted.
"""

from __future__ import annotations

import pytest
from django.core.paginator import Paginator

from incidents import selectors
from incidents.models import Case
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

# A page of the case list: count for the paginator, the page of cases (root cause joined),
# their term links.
LIST_QUERIES = 3
# One case: the case, then prefetches of term links, sources, scale tables, their columns,
# their rows, related links.
DETAIL_QUERIES = 7


@pytest.fixture
def many_more_cases(tmp_path):
    documents = [synthetic_case(n, related=["IL-0428"]) for n in range(60)]
    import_case_files(paths=write_cases(tmp_path, documents))


def read_page(number: int) -> None:
    # What a browsing list reads (search_cases without a query pages the same queryset).
    page = Paginator(Case.objects.published().newest_first().with_summary(), 20).get_page(number)
    for case in page:
        assert case.root_cause_category.name and case.topics is not None


@pytest.mark.parametrize("number", [1, 2])
def test_list_query_count_is_fixed(django_assert_num_queries, number, many_more_cases):
    with django_assert_num_queries(LIST_QUERIES):
        read_page(number)


@pytest.mark.parametrize("case_id", ["IL-0428", "IL-900001"])
def test_detail_query_count_is_fixed(django_assert_num_queries, case_id, many_more_cases):
    with django_assert_num_queries(DETAIL_QUERIES):
        case = selectors.case_by_id(case_id)
        # Reading every prefetched relation runs no further query.
        assert case.sources.all() and case.scale_tables.all()
        assert all(t.columns.all() and t.rows.all() for t in case.scale_tables.all())
        assert len(case.related_links.all()) >= (1 if case_id == "IL-900001" else 0)


def test_list_query_count_does_not_grow_with_cases(django_assert_num_queries, tmp_path):
    with django_assert_num_queries(LIST_QUERIES):
        read_page(1)
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(n) for n in range(100, 140)]))
    with django_assert_num_queries(LIST_QUERIES):
        read_page(1)
