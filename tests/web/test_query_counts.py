"""Pages run a fixed number of queries, whatever the number of cases.

Each page is counted twice, before and after importing 60 more (synthetic) cases: the
numbers must not move. The pinned numbers say where the queries go; pages that call the
search module depend on its internals, which are being replaced on another branch.
"""

from __future__ import annotations

import pytest

from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

PAGES = {
    # search_cases: hits + their term links (2), total (1), facet counts (7).
    "/cases/": 10,
    # the same, plus one query naming the chips' terms.
    "/cases/?symptom=nccl-timeout&exclude_topic=inference&sort=oldest": 11,
    # case_by_id (7), similar_cases (2: candidate cases and their term links).
    "/cases/IL-0428": 9,
    # case_stats (8), vocabulary("topic") (1), latest cases with term links (2).
    "/": 11,
    # vocabulary("topic").
    "/topics/": 1,
    # topic_overview (7 including latest cases' term links).
    "/topics/training": 7,
    # vocabulary().
    "/vocab/": 1,
    # term_detail: term, co-occurring terms per facet (4), count, cases + term links (2).
    "/vocab/symptom/nccl-timeout": 8,
    # case_stats.
    "/stats": 8,
    # feed term, cases + term links.
    "/feeds/topics/training.atom": 3,
    # the sitemap paginator's count of cases, the cases, terms with counts.
    "/sitemap.xml": 3,
}


@pytest.mark.parametrize(("url", "queries"), PAGES.items())
def test_page_query_counts_are_fixed(client, django_assert_num_queries, tmp_path, url, queries):
    with django_assert_num_queries(queries):
        assert client.get(url).status_code == 200
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(n) for n in range(60)]))
    with django_assert_num_queries(queries):
        assert client.get(url).status_code == 200
