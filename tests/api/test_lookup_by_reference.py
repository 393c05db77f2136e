"""`GET /api/lookup` and `/refs/`: the cases citing an upstream record, by alias or by URL,
and search reading `owner/repo#N` tokens as lookups (issue 15, point 4)."""

from __future__ import annotations

import pytest

from incidents.references import reference_key
from incidents.search import search_cases
from incidents.selectors import split_reference_tokens
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

NCCL_1116 = {
    "kind": "issue",
    "id": "NVIDIA/nccl#1116",
    "url": "https://github.com/NVIDIA/nccl/issues/1116",
    "state": "closed",
    "fixed_in": "2.20.3",
}


@pytest.mark.parametrize(
    "text, key",
    [
        ("NVIDIA/nccl#1405", "nvidia/nccl#1405"),
        ("https://github.com/NVIDIA/nccl/issues/1405", "nvidia/nccl#1405"),
        ("https://github.com/nvidia/NCCL/pull/1405/files#diff-1", "nvidia/nccl#1405"),
        ("http://www.github.com/NVIDIA/nccl/issues/1405/", "nvidia/nccl#1405"),
        ("arXiv:2407.21783", "arxiv:2407.21783"),
        ("https://arxiv.org/pdf/2407.21783v2", "arxiv:2407.21783"),
        ("https://www.Example.org/blog/post/#part", "example.org/blog/post"),
        (
            "https://github.com/NVIDIA/nccl/blob/master/README.md",
            "github.com/NVIDIA/nccl/blob/master/README.md",
        ),
        ("nccl hang", None),
    ],
)
def test_aliases_and_urls_of_one_record_share_a_key(text, key):
    assert reference_key(text) == key


def test_a_record_is_found_by_alias_partial_alias_and_url(client):
    for query in (
        "ref=NVIDIA/nccl%231116",
        "ref=nvidia/NCCL%231116",
        "ref=nccl%231116",
        "url=https://github.com/NVIDIA/nccl/issues/1116%23issuecomment-1882",
    ):
        body = client.get(f"/api/lookup?{query}").json()
        assert body["key"] == "nvidia/nccl#1116", query
        assert body["record"] == NCCL_1116
        assert body["count"] == 1
        [case] = body["cases"]
        assert (case["id"], case["via"]) == ("IL-0602", ["reference", "source"])


def test_one_source_holds_many_cases(client):
    url = "https://github.com/huggingface/m4-logs/blob/master/tr-190-80b/chronicles.md"
    body = client.get("/api/lookup", {"url": url}).json()
    assert body["record"] is None  # cited as a source only
    assert sorted(c["id"] for c in body["cases"]) == [
        "IL-0480",
        "IL-0481",
        "IL-0482",
        "IL-0568",
        "IL-0569",
        "IL-0570",
        "IL-0571",
    ]
    assert {tuple(c["via"]) for c in body["cases"]} == {("source",)}


def test_a_record_no_case_cites_is_an_empty_answer(client):
    body = client.get("/api/lookup?ref=NVIDIA/nccl%23999999").json()
    assert (body["count"], body["cases"], body["record"]) == (0, [], None)


@pytest.mark.parametrize(
    "query, parameter, detail",
    [
        ("", "ref", "give `ref` (an alias such as NVIDIA/nccl#1116) or `url`"),
        (
            "ref=nccl%20hang",
            "ref",
            "names no upstream record; give an alias: owner/repo#N, repo#N or arXiv:NNNN.NNNNN",
        ),
        # `curl '/api/lookup?ref=NVIDIA/nccl#1116'`: the server sees `NVIDIA/nccl`, and was told
        # to give owner/repo#N, which the user had typed.
        (
            "ref=NVIDIA/nccl",
            "ref",
            "names no upstream record; give an alias: owner/repo#N, repo#N or arXiv:NNNN.NNNNN; "
            "write # as %23 in a URL (ref=NVIDIA/nccl%23N, such as NVIDIA/nccl%231116): "
            "what follows a bare # is not sent",
        ),
        ("url=ftp://example.org/x", "url", "names no upstream record; give an http(s) URL"),
        ("ref=a/b%231&url=https://example.org", "url", "give `ref` or `url`, not both"),
        ("ref=a/b%231&ref=a/b%232", "ref", "given more than once; give it once"),
        ("id=a/b%231", "id", "unknown parameter; this endpoint accepts ref, url"),
    ],
)
def test_bad_lookups_are_a_400_naming_the_parameter(client, query, parameter, detail):
    response = client.get(f"/api/lookup?{query}")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert [(e["parameter"], e["detail"]) for e in response.json()["errors"]][:1] == [(parameter, detail)]


def test_the_lookup_runs_a_fixed_number_of_queries(client, django_assert_num_queries):
    # Version (2: ETag and Last-Modified), the record's keys, the citing cases, their terms.
    with django_assert_num_queries(5):
        assert client.get("/api/lookup?ref=NVIDIA/nccl%231116").status_code == 200


def test_the_record_page_lists_its_cases_and_links_its_json_twin(client):
    response = client.get("/refs/?ref=NVIDIA/nccl%231116")
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        response["Link"] == '</api/lookup?ref=NVIDIA%2Fnccl%231116>; rel="alternate"; type="application/json"'
    )
    assert "closed, fixed in 2.20.3" in html.replace(":", ",")
    assert 'href="/cases/IL-0602"' in html
    assert client.get("/refs/?ref=nccl%20hang").status_code == 400


def test_search_reads_reference_tokens_as_lookups():
    assert split_reference_tokens("nccl#1116 all-to-all hang") == (["nccl#1116"], "all-to-all hang")
    assert split_reference_tokens("#1116 NCCL 2.19") == ([], "#1116 NCCL 2.19")
    results = search_cases(query="NVIDIA/nccl#1116")
    assert [hit.case.id for hit in results.hits] == ["IL-0602"]
    assert results.notes[0] == "Cases citing NVIDIA/nccl#1116 (references and sources)."
    # The paper of five cases; the rest of the query ranks them.
    results = search_cases(query="arXiv:2402.15627")
    assert sorted(hit.case.id for hit in results.hits) == [
        "IL-0441",
        "IL-0442",
        "IL-0545",
        "IL-0579",
        "IL-0580",
    ]


def test_the_api_search_and_mcp_search_read_them_too(client):
    mcp = InMemoryMcp()
    body = client.get("/api/cases/?q=nccl%231116").json()
    assert [hit["id"] for hit in body["results"]] == ["IL-0602"]
    result = mcp.ok("search_incidents", query="https://github.com/NVIDIA/nccl/issues/1116")
    assert [hit["id"] for hit in result["hits"]] == ["IL-0602"]


def test_the_record_page_without_parameters_is_the_empty_form(client):
    response = client.get("/refs/")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<input id="ref-input" name="ref" type="text" value=""' in html
    assert 'role="alert"' not in html
    assert "<title>Look up an upstream record" in html


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("ref=", "Give an upstream record: an alias such as NVIDIA/nccl#1116, or a URL."),
        ("url=%20", "Give an upstream record: an alias such as NVIDIA/nccl#1116, or a URL."),
        (
            "reference=NVIDIA/nccl%231116",
            "Give an upstream record: an alias such as NVIDIA/nccl#1116, or a URL.",
        ),
        (
            "ref=nccl%20hang",
            "“nccl hang” names no upstream record: give owner/repo#N, repo#N, arXiv:NNNN.NNNNN",
        ),
        (
            "ref=NVIDIA/nccl",
            "“NVIDIA/nccl” names no upstream record: give owner/repo#N, repo#N, arXiv:NNNN.NNNNN "
            "or an http(s) URL. Write # as %23 in a URL (ref=NVIDIA/nccl%23N, such as "
            "NVIDIA/nccl%231116): what follows a bare # is not sent.",
        ),
    ],
)
def test_an_empty_or_malformed_parameter_is_still_a_400_saying_what_to_give(client, query, problem):
    response = client.get(f"/refs/?{query}")
    assert response.status_code == 400
    assert f'<p class="notice" role="alert">{problem}' in response.content.decode()
