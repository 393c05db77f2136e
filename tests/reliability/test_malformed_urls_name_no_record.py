"""A URL `urlsplit` cannot read (an unclosed `[`, a port out of range or not a number) names
no upstream record: search reads it as words, the explicit lookups (`/api/lookup?url=`,
`/refs/?url=`) answer 400 naming the parameter, the lookalike check skips it, MCP's
search answers as the API does, and `/mcp` refuses it as an Origin. All of them read URLs
through `references.split_url`, which never raises; each of these was a 500."""

from __future__ import annotations

import logging

import pytest
from django.test import override_settings

from incidents.duplicates import url_variants
from incidents.library_summary import source_kind
from incidents.references import alias_of_url, reference_key, split_url
from incidents.selectors import split_reference_tokens
from mcp_server.http_guard import origin_allowed
from tests.conftest import ids_quoting
from tests.mcp.conftest import InMemoryMcp

MALFORMED = [
    "https://example.org:99999/x",  # port out of range
    "https://example.org:abc/x",  # port not a number
    "http://[",  # unclosed IPv6 bracket
    "http://[::1",
    "https://github.com:0x1/NVIDIA/nccl/issues/1405",  # an issue URL with a bad port
    "https://arxiv.org:-1/abs/2407.21783",
]


@pytest.mark.parametrize("url", MALFORMED)
def test_a_malformed_url_is_no_reference_and_nothing_raises(url):
    assert split_url(url) is None
    assert (reference_key(url), alias_of_url(url), url_variants(url)) == (None, None, [])
    assert source_kind(url) == "postmortem, blog post or documentation"
    assert split_reference_tokens(f"{url} nccl") == ([], f"{url} nccl")


def test_well_formed_urls_keep_their_keys():
    # The guard changes nothing for a URL urlsplit reads: ports kept, default port elided.
    assert reference_key("https://Example.org:8443/x/") == "example.org:8443/x"
    assert reference_key("https://www.example.org/x#part") == "example.org/x"
    assert reference_key("https://github.com/NVIDIA/nccl/issues/1405#c1") == "nvidia/nccl#1405"
    assert reference_key("http://[::1]:8080/a") == "::1:8080/a"
    assert split_reference_tokens("NVIDIA/nccl#1405 https://example.org:8443/x hang") == (
        ["NVIDIA/nccl#1405", "https://example.org:8443/x"],
        "hang",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("url", MALFORMED)
def test_search_reads_a_malformed_url_as_words_on_the_page_and_the_api(client, url):
    api = client.get("/api/cases/", {"q": url})
    # Read as words: "http://[" is the word http (9 cases say it, IL-0634's "HTTP codes" the
    # latest); no case's text holds all the words of the others.
    expected = client.get("/api/cases/", {"q": "http"}).json()["count"] if url == "http://[" else 0
    assert (api.status_code, api.json()["count"]) == (200, expected)
    assert url != "http://[" or expected == 9
    page = client.get("/cases/", {"q": url})
    assert page.status_code == 200
    assert "Something failed" not in page.content.decode()


@pytest.mark.django_db
def test_a_malformed_url_next_to_words_is_searched_as_words(client):
    # "http://[::1 nccl" stays text (split_reference_tokens keeps it, tested above): no case
    # has the words of the broken URL, so the matches are cases about NCCL, where a reference
    # token would have been a condition on upstream records (and found none).
    body = client.get("/api/cases/", {"q": "http://[::1 nccl"}).json()
    listed = [case["id"] for case in body["results"]]
    assert 1 <= body["count"] == len(listed) <= 3
    assert set(listed) <= set(ids_quoting("nccl"))


@pytest.mark.django_db
@pytest.mark.parametrize("url", MALFORMED)
def test_lookup_by_a_malformed_url_is_a_400_naming_the_parameter(client, url):
    response = client.get("/api/lookup", {"url": url})
    assert (response.status_code, response["Content-Type"]) == (400, "application/problem+json")
    assert response.json()["errors"] == [
        {"parameter": "url", "detail": "names no upstream record; give an http(s) URL", "value": url}
    ]
    page = client.get("/refs/", {"url": url})
    assert page.status_code == 400
    assert "names no upstream record: give owner/repo#N, repo#N, arXiv:NNNN.NNNNN or an http(s) URL" in (
        page.content.decode()
    )
    assert client.get("/refs/", {"ref": url}).status_code == 400


@pytest.mark.django_db
def test_the_lookalike_check_skips_a_malformed_url(client):
    response = client.get(
        "/api/proposals/lookalikes",
        {"text": "x", "url": ["http://[::1", "https://github.com/NVIDIA/nccl/issues/1116"]},
    )
    assert response.status_code == 200
    # The well-formed URL next to it is still checked.
    reasons = [d["reason"] for d in response.json()["duplicates"]]
    assert reasons and all(
        r.startswith("same source URL https://github.com/NVIDIA/nccl/issues/1116") for r in reasons
    )


@pytest.mark.django_db
def test_mcp_search_reads_a_malformed_url_as_words(client, caplog):
    with caplog.at_level(logging.WARNING):
        result = InMemoryMcp().ok("search_incidents", query="http://[::1 nccl", limit=25)
    api = client.get("/api/cases/", {"q": "http://[::1 nccl", "page_size": 25}).json()
    assert [hit["id"] for hit in result["hits"]] == [case["id"] for case in api["results"]]
    assert result["total"] == api["count"] >= 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@override_settings(ALLOWED_HOSTS=["kb.example.org"], MCP_ALLOWED_ORIGINS=[])
def test_a_malformed_origin_is_refused_not_a_crash():
    assert origin_allowed("https://kb.example.org")
    for origin in ("http://[", "https://kb.example.org:99999", "https://kb.example.org:abc"):
        assert origin_allowed(origin) is False, origin
