"""Anything a person can type is safe: results or an empty list with a clear note."""

from __future__ import annotations

import re

import pytest

from incidents.overlap import case_prose
from incidents.rendering import snippet_html
from incidents.search import search_cases
from incidents.search.query import MAX_QUERY_CHARS
from tests.api.fixture_facts import published_documents

pytestmark = pytest.mark.django_db

HOSTILE = [
    '"',
    '""',
    '"unclosed phrase',
    "'",
    "NCCL-timeout",
    "Xid:79",
    "a:b:c",
    "(",
    ")",
    "(hang",
    "((hang) OR (stuck))",
    "*",
    "hang*",
    "**",
    "AND",
    "OR",
    "NOT",
    "AND OR NOT",
    "hang AND",
    "OR hang",
    "NOT hang",
    "-",
    "--",
    "- -",
    "-hang",
    "---hang",
    "emoji 🔥 hang 😀",
    "😀",
    "\x00",
    "hang\x00timeout",
    "x" * 10_000,
    "hang " * 2_000,
    "the of and",
    "NEAR(a b)",
    "title:hang",
    "{hang}",
    "[hang]",
    "^hang",
    "hang;DROP TABLE incidents_case;--",
    "' OR 1=1 --",
    "%",
    "%s",
    "\\",
    "\\x00",
    "💥" * 100,
    "\u202ehang",
    "\ue000mark\ue001",
    "Ωmega ünïcödé",
    "漢字",
    "'; SELECT pg_sleep(5); --",
    "hang\nstuck\ttimeout",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_query_returns_results_or_a_note(query):
    results = search_cases(query=query)
    assert results.total >= len(results.hits)
    if not results.hits:
        assert results.notes, f"no hits and no note for {query!r}"
    for hit in results.hits:
        assert hit.snippet is None or "<script" not in (snippet_html(hit.snippet) or "")


def test_only_stop_words_gives_an_empty_list_and_says_why():
    results = search_cases(query="the of and")
    assert results.hits == []
    assert results.total == 0
    assert results.notes == [
        "The query has only very common words (and, of, the), which are not searched:"
        " add a more specific word, such as an error message or a component."
    ]


def test_only_punctuation_or_emoji_says_there_is_nothing_to_search():
    for query in ("😀", "- ( ) * :", "\x00"):
        results = search_cases(query=query)
        assert results.hits == []
        assert results.notes == [
            "The query has no words to search for (only punctuation or symbols):"
            " type a word, an error message or a component."
        ]


def test_a_very_long_query_is_cut_and_says_so():
    results = search_cases(query="hang " * 2_000)
    assert f"The query was cut to its first {MAX_QUERY_CHARS} characters." in results.notes
    assert results.hits


def test_a_query_that_matches_nothing_says_so():
    results = search_cases(query="zyxwvutsrq")
    assert (results.hits, results.total) == ([], 0)
    assert results.notes == ["No case matches this query."]  # no filter is set: none is named


def test_double_quotes_make_a_phrase():
    # "silent data corruption" as a phrase; the words apart appear in many more cases.
    phrase = {h.case.id for h in search_cases(query='"silent data corruption"', limit=50).hits}
    assert {"IL-0437", "IL-0439", "IL-0447"} <= phrase
    assert "IL-0431" not in phrase


def test_minus_excludes_a_word():
    with_vllm = {h.case.id for h in search_cases(query="NCCL all-reduce", limit=50).hits}
    without = {h.case.id for h in search_cases(query="NCCL all-reduce -vLLM", limit=50).hits}
    assert "IL-0463" in with_vllm
    assert "IL-0463" not in without
    assert without < with_vllm


def test_minus_excludes_a_phrase_and_not_works_too():
    a = {h.case.id for h in search_cases(query='NCCL -"CUDA graphs"', limit=50).hits}
    b = {h.case.id for h in search_cases(query='NCCL NOT "CUDA graphs"', limit=50).hits}
    assert a == b
    assert not a & {"IL-0463", "IL-0464"}


def test_only_exclusions_list_every_other_case_and_say_so():
    without = {
        d["id"]
        for d in published_documents()
        if not any(re.search(r"\bkubernetes\b", p, re.IGNORECASE) for p in case_prose(d))
    }
    first = search_cases(query="-Kubernetes", limit=100)
    assert first.total == len(without)
    assert first.notes == ["The query only excludes words: showing every case without them."]
    ids, offset = [], 0
    while offset < first.total:  # every page, as a reader would follow them
        ids += [h.case.id for h in search_cases(query="-Kubernetes", offset=offset, limit=100).hits]
        offset += 100
    assert sorted(ids) == sorted(without)
    assert "IL-0458" not in ids and "IL-0428" in ids


def test_or_combines_alternatives():
    ecc = {h.case.id for h in search_cases(query="etcd", limit=50).hits}
    redis = {h.case.id for h in search_cases(query="redis", limit=50).hits}
    both = {h.case.id for h in search_cases(query="etcd OR redis", limit=50).hits}
    assert both == ecc | redis
    assert "IL-0454" in both and "IL-0458" in both


def test_a_double_dash_option_is_searched_not_excluded():
    hits = search_cases(query="--enforce-eager").hits
    assert hits[0].case.id == "IL-0463"
