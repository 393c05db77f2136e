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


# Every page that answers conditional GETs first reads the store version for its ETag and
# Last-Modified: newest case modification and count (1), the vocabulary digest (1).
STORE_VERSION = 2

PAGES = {
    # store version, case_stats (8), vocabulary("topic") (1), latest cases with term links (2).
    "/": STORE_VERSION + 11,
    # store version, vocabulary("topic").
    "/topics/": STORE_VERSION + 1,
    # store version, topic_overview (7 including latest cases' term links).
    "/topics/interconnect": STORE_VERSION + 7,
    # store version, vocabulary().
    "/vocab/": STORE_VERSION + 1,
    # store version, term_detail: term, co-occurring terms of every facet (1: one grouped query
    # since organizations and accelerators made six facets; it was one per facet), count,
    # cases + term links (2).
    "/vocab/symptom/nccl-timeout": STORE_VERSION + 5,
    "/vocab/organization/meta": STORE_VERSION + 5,
    # the same and the accelerator family's models (1).
    "/vocab/accelerator/a100": STORE_VERSION + 6,
    "/vocab/accelerator/a100-80gb": STORE_VERSION + 6,
    # store version, case_stats (8), vocabulary("topic") for the per-kind chart (1),
    # vocabulary("workload") for the per-workload chart (1).
    "/stats": STORE_VERSION + 10,
    # store version, feed term, cases + term links.
    "/feeds/topics/interconnect.atom": STORE_VERSION + 3,
    # the sitemap paginator's count of cases, the cases, terms with counts.
    "/sitemap.xml": 3,
    # store version, code_detail: the term, its cases with their root causes (whose checks
    # the page lists), their term links. The twin of /api/codes/<slug> (pinned at 5 too).
    "/codes/ibv-wc-retry-exc-err": STORE_VERSION + 3,
    # store version, record_lookup: the record's keys, the citing cases, their term links.
    "/refs/?ref=NVIDIA/nccl%231116": STORE_VERSION + 3,
    # store version, check_versions: the component terms (1); affected_cases: the cases with
    # a range for one of them (1), their term links (1). A GET form: the page reads no body.
    "/affected/?versions=NCCL%202.19.3%0APyTorch%202.1.0": STORE_VERSION + 3,
}


@pytest.mark.parametrize(("url", "queries"), PAGES.items())
def test_page_query_counts_are_fixed(client, django_assert_num_queries, tmp_path, url, queries):
    with django_assert_num_queries(queries):
        assert client.get(url).status_code == 200
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(n) for n in range(60)]))
    with django_assert_num_queries(queries):
        assert client.get(url).status_code == 200


# `exclude_topic=inference` names a former topic, now the workload: the parser moves it there.
FILTERS = CaseFilters(include={"symptom": ("nccl-timeout",)}, exclude={"workload": ("inference",)})
SEARCH_PAGES = {
    # store version, then search_cases.
    "/cases/": (STORE_VERSION, lambda: lambda: search_cases(limit=20)),
    # store version, one query naming the chips' terms, then search_cases.
    "/cases/?q=hang&symptom=nccl-timeout&exclude_topic=inference&sort=oldest": (
        STORE_VERSION + 1,
        lambda: lambda: search_cases(query="hang", filters=FILTERS, sort="oldest", limit=20),
    ),
    # store version, the vocabulary of the workload chip (1), then search_cases: bands and
    # bounds are conditions on the case rows.
    "/cases/?workload=training&scale=64-1023&min_nodes=8": (
        STORE_VERSION + 1,
        lambda: (
            lambda: search_cases(
                filters=CaseFilters(
                    include={"workload": ("training",), "scale": ("64-1023",)}, bounds={"min_nodes": 8}
                ),
                limit=20,
            )
        ),
    ),
    # store version, case_by_id (7: the case and its prefetches), then similar_cases on that
    # case (its hand-made links among the prefetches: no query of their own).
    "/cases/IL-0428": (
        STORE_VERSION + 7,
        lambda: partial(similar_cases, Case.objects.with_document().get(id="IL-0428"), limit=5),
    ),
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
