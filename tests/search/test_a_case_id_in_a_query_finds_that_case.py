"""A case id typed into search (`IL-0428`, `il-0428`, `IL-0428 nccl`) finds that case: an
exact, strong match of score 1, first, the same on the page, in the API and in MCP. The id
used to be searched as the words `il` and `0428`: "No cases match" and two unrelated partial
matches (IL-0456, IL-0479). An id no published case has is named in a note with the
closest ids, as an unknown id in a URL is; reference lookups and numbers among words are
searched as before."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import search_cases
from incidents.selectors import CaseFilters
from incidents.selectors.lookup import split_case_ids
from tests.factories import synthetic_case
from tests.mcp.conftest import InMemoryMcp
from tests.search.test_query_counts import BROWSE_QUERIES, SEARCH_QUERIES
from tests.web.html import element, text_of

pytestmark = pytest.mark.django_db

NAMED = "The query names case IL-0428 by id: a strong match, whatever the words."


def test_id_tokens_are_told_from_words_and_numbers():
    assert split_case_ids("IL-0428") == (["IL-0428"], "")
    assert split_case_ids("il-0428 nccl") == (["IL-0428"], "nccl")
    assert split_case_ids("il428, IL_0429. IL-0428 hang") == (["IL-0428", "IL-0429"], "hang")
    # A number is not an id without its `IL`; nor a reference, a word holding one, an exclusion.
    for query in ("exitcode -9", "Xid 79", "nccl 2.18.1", "0428", "NVIDIA/nccl#1116", "FIL-0428", "-IL-0428"):
        assert split_case_ids(query) == ([], query)
    # Inside a quoted phrase an id is a word of the phrase, matched as written.
    assert split_case_ids('"nccl IL-0428 timeout"') == ([], '"nccl IL-0428 timeout"')
    assert split_case_ids('"IL-0428"') == ([], '"IL-0428"')
    assert split_case_ids('IL-0429 "nccl timeout" IL-0428') == (["IL-0429", "IL-0428"], '"nccl timeout"')


@pytest.mark.parametrize("query", ["IL-0428", "il-0428", "IL0428", " il-428 "])
def test_an_id_alone_gives_that_case_strong_with_score_one(query):
    results = search_cases(query=query)
    assert [(hit.case.id, hit.score, hit.confidence) for hit in results.hits] == [("IL-0428", 1.0, "strong")]
    assert (results.total, results.partial_hits, results.browsing) == (1, [], False)
    assert results.notes == [NAMED]
    assert {f.value: f.count for f in results.facets["organization"]} == {"bigscience": 1}


def test_an_id_with_words_comes_first_and_the_words_rank_the_rest():
    words = search_cases(query="nccl", limit=100)
    results = search_cases(query="IL-0428 nccl", limit=100)
    assert (results.hits[0].case.id, results.hits[0].score, results.hits[0].confidence) == (
        "IL-0428",
        1.0,
        "strong",
    )
    rest = [hit.case.id for hit in words.hits if hit.case.id != "IL-0428"]
    assert [hit.case.id for hit in results.hits[1:]] == rest
    assert results.total == len(rest) + 1
    assert results.notes == [NAMED]


def test_several_ids_each_come_once():
    results = search_cases(query="IL-0429 il-0428 IL-0429")
    assert sorted(hit.case.id for hit in results.hits) == ["IL-0428", "IL-0429"]
    assert {hit.confidence for hit in results.hits} == {"strong"}
    assert results.notes == [
        "The query names cases IL-0429, IL-0428 by id: strong matches, whatever the words."
    ]


def test_filters_still_apply():
    gpu_errors = CaseFilters(include={"topic": ("gpu-errors",)})
    results = search_cases(query="IL-0428", filters=gpu_errors)
    assert (results.total, results.hits) == (0, [])
    assert results.notes == ["The query names case IL-0428 by id, but the filters leave it out."]


def test_an_unknown_id_names_the_closest_published_ids():
    results = search_cases(query="IL-0440")
    assert (results.total, results.hits, results.partial_hits) == (0, [], [])
    assert results.notes == [
        "No published case has the id IL-0440; the closest ids: IL-0439, IL-0441, IL-0438."
    ]


def test_a_draft_is_not_found_by_its_id(import_synthetic):
    draft = synthetic_case(0)
    import_synthetic(draft)
    Case.objects.filter(id=draft["id"]).update(status=Case.Status.DRAFT)
    results = search_cases(query=draft["id"])
    assert results.hits == [] and results.notes[0].startswith(f"No published case has the id {draft['id']}")


def test_the_reference_lookup_and_numbers_among_words_are_unchanged():
    [hit] = search_cases(query="NVIDIA/nccl#1116").hits
    assert (hit.case.id, hit.score, hit.confidence) == ("IL-0602", 1.0, "strong")
    # Both: the named case must cite the record too, as every case listed does.
    both = search_cases(query="NVIDIA/nccl#1116 IL-0428")
    assert [h.case.id for h in both.hits] == ["IL-0602"]
    assert (
        both.notes[-1]
        == "The query names case IL-0428 by id, but the filters or the record cited leave it out."
    )
    assert [h.case.id for h in search_cases(query="Xid 79").hits] == ["IL-0523", "IL-0444"]


def test_the_lookup_costs_one_query_only_when_an_id_is_named(django_assert_num_queries):
    # Whether the named cases are published and allowed: one query, for id-shaped tokens only.
    with django_assert_num_queries(SEARCH_QUERIES + 1):
        search_cases(query="IL-0428 NCCL timeout hang")
    # An id alone lists the named cases: the lookup, then what browsing costs.
    with django_assert_num_queries(1 + BROWSE_QUERIES):
        search_cases(query="IL-0428")
    # An unknown id: the lookup and every published id (for the closest), nothing to list.
    with django_assert_num_queries(2):
        search_cases(query="IL-9999")
    # Numbers among words cost what any search does (matches on both backends: the facet
    # query runs), with its confident first hit's nearest case (`nearest_to_first`).
    with django_assert_num_queries(SEARCH_QUERIES + 1):
        assert search_cases(query="Xid 79").total == 2


def test_the_api_lists_it_as_a_hit(client):
    body = client.get("/api/cases/", {"q": "il-0428"}).json()
    assert [(hit["id"], hit["score"], hit["confidence"]) for hit in body["results"]] == [
        ("IL-0428", 1.0, "strong")
    ]
    assert (body["count"], body["partial_matches"], body["notes"]) == (1, [], [NAMED])


def test_search_incidents_lists_it_as_a_hit():
    result = InMemoryMcp().ok("search_incidents", query="IL-0428 nccl", limit=3)
    assert [(hit["id"], hit["score"], hit["confidence"]) for hit in result["hits"]][0] == (
        "IL-0428",
        1.0,
        "strong",
    )
    assert result["notes"] == [NAMED]


def test_the_page_shows_it_as_a_strong_match(client):
    html = client.get("/cases/", {"q": "IL-0428"}).content.decode()
    results = text_of(element(html, "section", class_="results"))
    assert "1 case matching “IL-0428”" in results
    assert "Strong match · IL-0428" in results
    assert "No cases match" not in results
