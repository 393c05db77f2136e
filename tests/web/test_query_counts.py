"""Pages run a fixed number of queries, whatever the number of cases.

Each page is counted twice, before and after importing 60 more (synthetic) cases: the
numbers must not move. The pinned numbers say where the queries go. Pages that call the
search module add the cost of that call, measured here, to their own: the search module
pins its own counts and its internals change on their own schedule.
"""

from __future__ import annotations

from functools import partial

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.models import Case
from incidents.search import search_cases, similar_cases
from incidents.selectors import CaseFilters
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db


def cost(prepare) -> int:
    """Queries of the search call that `prepare()` sets up and returns (setup not counted)."""
    call = prepare()
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries)


PAGES = {
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


FILTERS = CaseFilters(include={"symptom": ("nccl-timeout",)}, exclude={"topic": ("inference",)})
SEARCH_PAGES = {
    # search_cases only.
    "/cases/": (0, lambda: lambda: search_cases(limit=20)),
    # one query naming the chips' terms, then search_cases.
    "/cases/?q=hang&symptom=nccl-timeout&exclude_topic=inference&sort=oldest": (
        1,
        lambda: lambda: search_cases(query="hang", filters=FILTERS, sort="oldest", limit=20),
    ),
    # case_by_id (7: the case and its prefetches), then similar_cases.
    "/cases/IL-0428": (7, lambda: partial(similar_cases, Case.objects.get(id="IL-0428"), limit=5)),
}


@pytest.mark.parametrize(
    ("url", "own", "search_call"), [(url, own, call) for url, (own, call) in SEARCH_PAGES.items()]
)
def test_search_page_query_counts_are_the_search_modules_plus_a_fixed_few(
    client, django_assert_num_queries, tmp_path, url, own, search_call
):
    with django_assert_num_queries(own + cost(search_call)):
        assert client.get(url).status_code == 200
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(n) for n in range(60)]))
    with django_assert_num_queries(own + cost(search_call)):
        assert client.get(url).status_code == 200
