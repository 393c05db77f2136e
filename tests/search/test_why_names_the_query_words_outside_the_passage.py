"""A hit's `why` names the query's words the case holds outside its passage and title
(`why_words.typed_words_held`): a passage shows the words of one place, so `NCCL watchdog
timeout` listed IL-0610 as "Matches: NCCL." though it tells of the watchdog, and
`CrashLoopBackOff vllm` a case naming both (IL-0606, strong) as "Matches: vLLM." (a new
user's walkthrough)."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.why_words import typed_words_held

BODY = "The NCCL watchdog fired after 30 12 minutes; pods sat in CrashLoopBackOff with error 12."


def test_the_words_held_outside_the_shown_ones_as_typed():
    typed = [[("NCCL",)], [("Watchdog",)], [("timeouts",)], [("crashloopbackoff",)]]
    assert typed_words_held(typed, BODY, ["NCCL"]) == ["Watchdog", "crashloopbackoff"]
    # A phrase counts with its words in a row; the first spelling the body holds is named.
    assert typed_words_held([[("sat", "pods")], [("pods", "sat")]], BODY, []) == ["pods sat"]
    assert typed_words_held([[("NCCL", "timeout"), ("NCCL", "watchdog")]], BODY, []) == ["NCCL watchdog"]
    # Words said already (by their stems), fillers and bare numbers are not named again.
    assert (
        typed_words_held([[("watchdogs",)], [("after",)], [("30",)], [("30", "12")]], BODY, ["watchdog"])
        == []
    )
    assert typed_words_held([[("error", "12")]], BODY, []) == ["error 12"]
    assert typed_words_held([[("NCCL",)]], None, []) == []


@pytest.mark.django_db
def test_a_hit_names_the_words_its_passage_lacks():
    hits = {hit.case.id: hit for hit in search_cases(query="CrashLoopBackOff vllm").hits}
    assert hits["IL-0606"].confidence == "strong"
    assert set((hits["IL-0606"].why or "").removeprefix("Matches: ").rstrip(".").split(", ")) == {
        "vLLM",
        "CrashLoopBackOff",
    }
    results = search_cases(query="NCCL watchdog timeout")
    why = {hit.case.id: hit.why or "" for hit in [*results.hits, *results.partial_hits]}
    assert "watchdog" in why["IL-0610"]


@pytest.mark.django_db
def test_a_number_the_case_writes_after_the_word_is_named():
    results = search_cases(query="NCCL error 12")
    why = {hit.case.id: hit.why or "" for hit in [*results.hits, *results.partial_hits]}
    # The passage (each database cuts its own) may name `NCCL` first.
    assert {why["IL-0485"], why["IL-0450"]} <= {"Matches: error 12.", "Matches: NCCL, error 12."}
