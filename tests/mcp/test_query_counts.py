"""Tools add a fixed, small number of queries to what the selectors and search module run.

The tool functions are called directly here (in the test's thread), so the queries can be
counted; over MCP they run the same code in a worker thread.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents import search, selectors
from mcp_server import tools
from mcp_server.filters import build_filters

pytestmark = pytest.mark.django_db

# Same as GET /api/cases/{id}: the case, then prefetches of term links, sources, scale tables,
# their columns, their rows, related links.
DOCUMENT_QUERIES = 7
# A miss: the case lookup, the case-insensitive lookup, every visible id (for the closest).
UNKNOWN_ID_QUERIES = 3
# selectors.find_topic (1) and topic_overview of the found term (6).
TOPIC_QUERIES = 7


def queries_of(function, *args, **kwargs) -> int:
    with CaptureQueriesContext(connection) as captured:
        function(*args, **kwargs)
    return len(captured)


def test_get_incident(django_assert_num_queries):
    with django_assert_num_queries(DOCUMENT_QUERIES):
        tools.get_incident(id="IL-0428")
    with django_assert_num_queries(DOCUMENT_QUERIES):
        tools.get_incident(id="IL-0428", fields=["title"])


def test_get_incident_unknown_id(django_assert_num_queries):
    with django_assert_num_queries(UNKNOWN_ID_QUERIES):
        with pytest.raises(Exception, match="Closest ids"):
            tools.get_incident(id="IL-0440")


def test_vocab_is_one_query(django_assert_num_queries):
    with django_assert_num_queries(1):
        tools.vocab()
    # The error codes: the one query /api/codes/ makes (`selectors.error_codes`).
    with django_assert_num_queries(1):
        tools.vocab(facet="error_code")


def test_get_topic(django_assert_num_queries):
    with django_assert_num_queries(TOPIC_QUERIES):
        tools.get_topic(slug="interconnect")
    # By name: the same, as find_topic reads every topic (1) and resolves the name in Python.
    with django_assert_num_queries(TOPIC_QUERIES):
        tools.get_topic(slug="Interconnect faults")


def test_search_adds_one_query_per_kind_of_filter(django_assert_num_queries):
    # Without `facets` the tool asks the search for no facet counts (they were computed
    # and dropped before).
    baseline = queries_of(search.search_cases, query="GPU", limit=10, facets=False)
    with django_assert_num_queries(baseline):
        tools.search_incidents(query="GPU")
    filters = build_filters(symptom="nccl-timeout", organization="Meta")
    baseline = queries_of(search.search_cases, query="GPU", filters=filters, limit=10, facets=False)
    # + the vocabulary, which resolves the symptom and the organization alike (organizations
    # are a term facet since issue 13; they used to cost a distinct-organizations query).
    with django_assert_num_queries(baseline + 1):
        tools.search_incidents(query="GPU", symptom="NCCL timeout", organization="meta (fair)")


def test_list_adds_nothing_without_filters(django_assert_num_queries):
    baseline = queries_of(search.search_cases, query="", sort="newest", limit=20, facets=False)
    with django_assert_num_queries(baseline):
        tools.list_incidents()


def test_facet_counts_cost_their_one_query_only_when_asked_for():
    # One grouped count over the result for every facet of the registry (topic, symptom, root
    # cause, component, organization, year, accelerator, workload, scale band, error code);
    # it was one query per facet, 10.
    for call in (tools.search_incidents, tools.list_incidents):
        kwargs = {"query": "GPU"} if call is tools.search_incidents else {}
        assert queries_of(call, facets=True, **kwargs) == queries_of(call, **kwargs) + 1


def test_similar_is_the_document_read_plus_the_search_modules(django_assert_num_queries):
    case = selectors.case_by_id("IL-0430")
    baseline = queries_of(search.similar_cases, case, limit=5)
    # Related cases come from the document's prefetch: no extra query.
    with django_assert_num_queries(DOCUMENT_QUERIES + baseline):
        tools.similar_incidents(id="IL-0430")


def test_match_log_adds_nothing(django_assert_num_queries):
    text = "NCCL error: unhandled system error\nXid 79"
    baseline = queries_of(search.match_log, text, limit=5)
    with django_assert_num_queries(baseline):
        tools.match_log(text=text)


def test_am_i_affected_runs_the_apis_three_queries(django_assert_num_queries):
    # As POST /api/affected: the component terms, the cases with a range for one of them,
    # their terms.
    with django_assert_num_queries(3):
        tools.am_i_affected(versions={"NCCL": "2.19.3", "PyTorch": "2.1.0"})


def test_an_error_code_filter_costs_the_one_vocabulary_query(django_assert_num_queries):
    filters = build_filters(error_code="xid-79")
    baseline = queries_of(
        search.search_cases, query="", sort="newest", limit=20, facets=False, filters=filters
    )
    with django_assert_num_queries(baseline + 1):  # + the vocabulary resolving "Xid 79"
        tools.list_incidents(error_code="Xid 79")
