"""List and detail API endpoints run a fixed number of queries whatever the number of cases.

The HTML pages (which add facet counts, similar cases...) pin their own counts in tests/web/.
"""

from __future__ import annotations

import pytest

from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

# Case list: count for the paginator, the page of cases (root cause joined), their term links.
LIST_QUERIES = 3
# Case detail: the case, then prefetches of term links, sources, scale tables, their columns,
# their rows, related links.
DETAIL_QUERIES = 7


@pytest.fixture
def many_more_cases(tmp_path):
    documents = [synthetic_case(n, related=["IL-0428"]) for n in range(60)]
    import_case_files(paths=write_cases(tmp_path, documents))


@pytest.mark.parametrize("url", ["/api/cases/", "/api/cases/?page=2"])
def test_list_query_count_is_fixed(client, django_assert_num_queries, url, many_more_cases):
    with django_assert_num_queries(LIST_QUERIES):
        assert client.get(url).status_code == 200


@pytest.mark.parametrize("url", ["/api/cases/IL-0428", "/api/cases/IL-900001"])
def test_detail_query_count_is_fixed(client, django_assert_num_queries, url, many_more_cases):
    with django_assert_num_queries(DETAIL_QUERIES):
        assert client.get(url).status_code == 200


def test_list_query_count_does_not_grow_with_cases(client, django_assert_num_queries, tmp_path):
    with django_assert_num_queries(LIST_QUERIES):
        client.get("/api/cases/")
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(n) for n in range(100, 140)]))
    with django_assert_num_queries(LIST_QUERIES):
        client.get("/api/cases/")
