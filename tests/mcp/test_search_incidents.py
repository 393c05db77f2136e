"""search_incidents: ranked hits from the search module, filters by name or slug, cursors."""

from __future__ import annotations

from incidents import search, selectors
from mcp_server.filters import build_filters
from tests.conftest import ids_quoting, load_fixture


def test_an_error_token_finds_its_case(mcp):
    result = mcp.ok("search_incidents", query="CUDA_LAUNCH_BLOCKING")
    top = result["hits"][0]
    # Three cases quote the variable (IL-0428, IL-0473, IL-0479); the first hit is one of them,
    # and its fields are its case document's.
    assert "IL-0428" in ids_quoting("CUDA_LAUNCH_BLOCKING")
    assert top["id"] in ids_quoting("CUDA_LAUNCH_BLOCKING")
    fixture = load_fixture(top["id"])
    assert top["organization"] == fixture["organization"]
    assert top["published"] == fixture["published"]
    assert top["topics"] == fixture["topics"]
    assert top["symptom_tags"] == fixture["symptoms"]["tags"]
    assert top["root_cause_category"] == fixture["root_cause"]["category"]
    assert set(top) == {
        "id",
        "title",
        "organization",
        "published",
        "topics",
        "symptom_tags",
        "root_cause_category",
        "url",
        "html_url",
        "score",
        "confidence",
        "snippet",
        "matched_terms",
        "why",
    }  # and `like` on the partial match listed as like the first hit (absent here)


def test_hits_and_total_are_the_search_modules(mcp):
    result = mcp.ok("search_incidents", query="GPU", limit=5)
    expected = search.search_cases(query="GPU", limit=5)
    assert result["total"] == expected.total > 5
    assert [h["id"] for h in result["hits"]] == [h.case.id for h in expected.hits]
    assert result["notes"] == expected.notes
    assert result["facets"] is None


def test_a_symptom_filter_takes_a_name_and_keeps_only_tagged_cases(mcp):
    result = mcp.ok("search_incidents", query="GPU", symptom="NCCL timeout", limit=25)
    expected = search.search_cases(query="GPU", filters=build_filters(symptom="nccl-timeout"), limit=25)
    assert result["total"] == expected.total >= 1
    assert all("NCCL timeout" in hit["symptom_tags"] for hit in result["hits"])
    assert mcp.ok("search_incidents", query="GPU", symptom="watchdog timeout", limit=25) == result


def test_cursors_walk_every_hit_once(mcp):
    seen, cursor = [], None
    while True:
        page = mcp.ok("search_incidents", query="NCCL", limit=4, **({"cursor": cursor} if cursor else {}))
        seen += [hit["id"] for hit in page["hits"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    everything = search.search_cases(query="NCCL", limit=100)
    assert everything.total < 100  # one call holds them all, to compare with
    assert seen == [hit.case.id for hit in everything.hits]
    assert len(seen) == page["total"] == everything.total > 8


def test_facets_on_request(mcp):
    result = mcp.ok("search_incidents", query="GPU", limit=1, facets=True)
    topics = {f["value"]: f["count"] for f in result["facets"]["topic"]}
    expected = search.search_cases(query="GPU", limit=1).facets["topic"]
    assert topics == {f.value: f.count for f in expected[:8]}
    assert set(result["facets"]) >= {"topic", "symptom", "root_cause", "component", "year"}


def test_nothing_found_says_what_to_try(mcp):
    result = mcp.ok("search_incidents", query="zzqxv", topic="checkpoint-storage")
    assert result["total"] == 0 and result["hits"] == [] and result["next_cursor"] is None
    assert result["notes"][-1] == (
        "Nothing matched: try fewer or other words (vocab lists synonyms), or drop a filter."
    )


def test_an_unknown_symptom_names_the_nearest_terms(mcp):
    message = mcp.error("search_incidents", query="hang", symptom="nccl")
    assert message == (
        "Unknown symptom 'nccl'. Nearest: nccl-error (NCCL error), nccl-timeout (NCCL timeout)."
        f" All {_count('symptom')} values: call vocab with facet='symptom'."
    )


def test_an_unknown_topic_lists_every_topic(mcp):
    message = mcp.error("search_incidents", query="hang", topic="gpus")
    assert message.startswith(
        "Unknown topic 'gpus'. Valid values: checkpoint-storage (Checkpoint and storage failures),"
        " configuration (Configuration mistakes), facility (Facility and power events),"
    )


def test_limits_out_of_range_are_refused_with_the_range(mcp):
    assert mcp.error("search_incidents", query="hang", limit=26) == (
        "Invalid arguments: limit must be between 1 and 25 (got 26)."
    )
    assert mcp.error("search_incidents", query="hang", limit=0) == (
        "Invalid arguments: limit must be between 1 and 25 (got 0)."
    )
    assert mcp.error("search_incidents", query="hang", year=1800) == (
        "Invalid arguments: year must be between 1990 and 2100 (got 1800)."
    )


def test_an_empty_query_is_refused(mcp):
    assert mcp.error("search_incidents", query="") == ("Invalid arguments: query must not be empty.")
    assert mcp.error("search_incidents") == "Invalid arguments: query is required."
    # Spaces alone are no query either: they listed every case (a new user's walkthrough).
    assert mcp.error("search_incidents", query=" \t\n ") == (
        "Invalid arguments: query must not be empty (it holds only spaces);"
        " list_incidents lists cases without one."
    )


def test_bad_cursors_are_refused(mcp):
    assert mcp.error("search_incidents", query="GPU", cursor="not-a-cursor").startswith(
        "cursor is not valid: pass the next_cursor of the previous call unchanged"
    )
    other = mcp.ok("search_incidents", query="GPU", limit=1)["next_cursor"]
    assert mcp.error("search_incidents", query="NCCL", cursor=other).startswith(
        "cursor was issued for a different query, filters or sort"
    )


def _count(facet: str) -> int:
    return len(selectors.vocabulary(facet))


def test_a_sort_names_the_tool_that_takes_it_and_its_values(mcp):
    # search_incidents ranks by relevance and takes no `sort`: it suggested `cursor`, spelt
    # alike (a new user's walkthrough); list_incidents takes one, newest or oldest.
    assert mcp.error("search_incidents", query="nccl hang", sort="latest").startswith(
        "Unknown argument 'sort' (list_incidents takes it: newest, oldest); search_incidents takes: query, "
    )
    assert mcp.error("list_incidents", query="nccl").startswith(
        "Unknown argument 'query' (search_incidents takes it); list_incidents takes: topic, "
    )
