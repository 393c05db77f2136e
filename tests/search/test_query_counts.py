"""Search, log matching and similar cases cost a fixed number of queries at any size."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.models import Case
from incidents.search import match_log, search_cases, similar_cases
from incidents.selectors import CaseFilters
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

# With a query: vocabulary with case counts, the lexical ranking, the stored embeddings,
# snippets, the page's cases (root cause joined), their term links, and the facet counts
# (one grouped query over the matches for every facet; it was one query per facet, 10).
SEARCH_QUERIES = 7
# Browsing (no query): the total, the page of cases, their term links, the facet counts
# (one grouped query; it was 10).
BROWSE_QUERIES = 4
# Terms with case counts, number of published cases, token look-up in the full-text index,
# (case, term) pairs of the found terms, the log's rare words (one look-up of at most
# WORD_LOOKUP words), the candidates' workloads, the candidates' passage vectors (the semantic
# order of near-ties), the hits' cases (root cause joined), their term links.
MATCH_LOG_QUERIES = 9
# Neighbour rows with their cases and root causes, their term links, the hand-made links (a
# case read `with_document` has them already: one fewer).
SIMILAR_QUERIES = 3

# More lines than a log read as words too has (`log_as_words.QUERY_LINES`): no word search.
LOG = (
    "[E ProcessGroupNCCL.cpp:475] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=20518, OpType=ALLREDUCE, Timeout(ms)=1800000)\n"
    "NVRM: Xid (PCI:0000:87:00): 79, GPU has fallen off the bus.\n"
    "iteration 1200 | lm loss 2.31\n"
    "iteration 1201 | lm loss 2.30\n"
)


@pytest.fixture(params=[0, 40], ids=["real-cases", "plus-40-synthetic"])
def extra_cases(request, import_synthetic):
    if request.param:
        import_synthetic(*[synthetic_case(n) for n in range(request.param)])


def test_search_query_count(django_assert_num_queries, extra_cases):
    with django_assert_num_queries(SEARCH_QUERIES):
        results = search_cases(query="NCCL timeout hang", limit=20)
    # Matches, then partial matches: only cases with the words or the meaning are matches.
    assert len(results.hits) + len(results.partial_hits) >= 5


def test_search_with_filters_query_count(django_assert_num_queries, extra_cases):
    filters = CaseFilters(include={"workload": ("training",)}, exclude={"year": ("2018",)})
    with django_assert_num_queries(SEARCH_QUERIES):
        search_cases(query="checkpoint", filters=filters)


def test_scale_and_bounds_add_no_query(django_assert_num_queries, extra_cases):
    # Bands and bounds are conditions on the case rows, not look-ups.
    filters = CaseFilters(include={"scale": ("64-1023", "10000-plus")}, bounds={"min_nodes": 8})
    with django_assert_num_queries(SEARCH_QUERIES):
        search_cases(query="checkpoint", filters=filters)
    with django_assert_num_queries(BROWSE_QUERIES):
        search_cases(filters=filters, limit=20)


def test_browse_query_count(django_assert_num_queries, extra_cases):
    with django_assert_num_queries(BROWSE_QUERIES):
        search_cases(limit=20)


def test_exclusion_only_query_count(django_assert_num_queries, extra_cases):
    # The vocabulary, then what browsing costs.
    with django_assert_num_queries(1 + BROWSE_QUERIES):
        search_cases(query="-kubernetes")


def test_match_log_query_count(django_assert_num_queries, extra_cases):
    with django_assert_num_queries(MATCH_LOG_QUERIES):
        hits = match_log(LOG)
    assert hits


def test_a_log_of_a_few_lines_adds_a_word_search_per_line(django_assert_num_queries, extra_cases):
    lines = LOG.splitlines()[:2]
    searches = 0
    for line in lines:
        with CaptureQueriesContext(connection) as searched:
            search_cases(query=line, limit=5, facets=False)
        searches += len(searched)
    assert searches >= 2 * 6
    with django_assert_num_queries(MATCH_LOG_QUERIES + searches):
        assert match_log("\n".join(lines))


def test_similar_cases_query_count(django_assert_num_queries, extra_cases):
    case = Case.objects.get(id="IL-0444")
    with django_assert_num_queries(SIMILAR_QUERIES):
        similar = similar_cases(case, limit=5)
    assert len(similar) == 5


def test_similar_cases_of_a_case_read_for_its_document_read_no_links_of_their_own(
    django_assert_num_queries, extra_cases
):
    # The case page, the API and MCP pass the case `case_by_id` read (`with_document`), whose
    # hand-made links are prefetched: `selectors.related_case_ids` reads those, and only the
    # neighbour rows and their terms are queried.
    case = Case.objects.with_document().get(id="IL-0444")
    with django_assert_num_queries(SIMILAR_QUERIES - 1):
        similar = similar_cases(case, limit=5, without_hand_linked=True)
    assert len(similar) == 5
