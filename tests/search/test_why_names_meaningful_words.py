"""A search hit's `why` names the meaningful words its snippet marks (`why_words.py`), not the
stop words a stemmed query word matched, function words or bare numbers.

"training hangs on one node" listed hits as `Matches: on.` (FTS5's porter stemmer reads
`one` as `on`, so every `on` of a case was marked) and `Matches: on, one, node.`; "rank 3
hangs" as `Matches: 3, rank.`, the 3 being any 3 of the case. The ranking still reads those
words; `why` leaves them out, keeps a number the query typed in an identifier (`xid 79`,
`-9`) or that the case writes after a marked word (`rank 3`), and when nothing is left says
why otherwise."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from incidents.search import search_cases
from incidents.search.planning import interpret
from incidents.search.results import Snippet, SnippetSegment, why_listed
from incidents.search.text import STOP_WORDS
from incidents.search.why_words import FUNCTION_WORDS, identifier_numbers, matched_words


def snippet(*parts: str) -> Snippet:
    """A snippet of `parts`, those written `[like this]` marked as matched."""
    return Snippet(
        tuple(
            SnippetSegment(part.strip("[]"), matched=part.startswith("["))
            for part in parts
            if part.strip("[]")
        )
    )


def test_stop_words_and_function_words_are_left_out():
    marked = snippet(
        "Training ", "[hangs]", " ", "[on]", " ", "[one]", " ", "[node]", " for ", "[every]", " job"
    )
    assert matched_words(marked) == ["hangs", "node"]


def test_a_bare_number_is_left_out_unless_written_after_a_marked_word():
    assert matched_words(snippet("[3]", " of 8 ", "[ranks]", " hang")) == ["ranks"]
    assert matched_words(snippet("then ", "[rank]", " ", "[3]", " hangs")) == ["rank 3"]
    assert matched_words(snippet("", "[Xid]", ": ", "[79]", " on GPU 2")) == ["Xid: 79"]
    # After a word that says nothing the number stays bare.
    assert matched_words(snippet("hangs ", "[on]", " ", "[3]", " nodes")) == []


def test_a_number_the_query_typed_in_an_identifier_is_kept_as_the_case_writes_it():
    assert matched_words(snippet("exit code ", "[9]"), ["-9"]) == []  # typed -9, written 9
    assert matched_words(snippet("exit code -", "[9]"), ["-9"]) == ["-9"]
    assert matched_words(snippet("exit code -", "[9]")) == []  # typed as a bare 9
    assert matched_words(snippet("ranks 1-", "[9]"), ["-9"]) == []  # a range, not -9
    assert matched_words(snippet("seen ", "[79]", " times"), ["79"]) == ["79"]
    # Numbers written as one identifier say something whoever typed them.
    assert matched_words(snippet("NCCL ", "[2.18.3]", " fixed it")) == ["2.18.3"]


def test_a_word_marked_in_parts_is_named_whole():
    # PostgreSQL's ts_headline marks each word of a phrase; FTS5 the phrase.
    assert matched_words(snippet("[all]", "-", "[reduce]", " in ", "[NCCL]")) == ["all-reduce", "NCCL"]
    assert matched_words(snippet("[torch]", ".", "[distributed]", ", ", "[hang]")) == [
        "torch.distributed",
        "hang",
    ]
    # Words apart stay apart.
    assert matched_words(snippet("[NCCL]", " ", "[timeout]")) == ["NCCL", "timeout"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "numbers"),
    [
        ("exitcode -9 killed", {"-9"}),
        ("xid 79", {"79"}),
        ("Xid:79 on one node", {"79"}),
        ("xid79", {"79"}),
        ("nccl 2.18.3 hang", {"2", "18", "3"}),
        ("exit code 137", {"137"}),
        ('"error 12" on rank 3', {"12"}),
        ("rank 3 hangs", set()),
        ("every rank at 100% util", set()),
        ("hang -x9 3", set()),  # -x9 excludes a word
    ],
)
def test_the_numbers_a_query_types_in_an_identifier(query, numbers):
    assert identifier_numbers(query, interpret(query)) == numbers


def test_when_no_word_says_something_why_says_it_otherwise():
    fillers = snippet("hangs ", "[on]", " ", "[one]", " of ", "[3]", " nodes")
    assert why_listed(fillers, ["Training hangs"], share=0.6) == "Tagged: Training hangs."
    assert why_listed(fillers, [], share=0.6) == "Has some of the query's words."
    assert why_listed(fillers, [], share=1.0) == "Has every word of the query."
    assert why_listed(fillers, [], like="IL-0497") == "Similar to IL-0497, the first hit."


def named_words(why: str) -> list[str]:
    found = re.search(r"Matches: (.*?)\.(?: |$)", why)
    return found.group(1).split(", ") if found else []


def says_nothing(word: str) -> bool:
    return word.isdigit() or all(
        w.lower() in STOP_WORDS | FUNCTION_WORDS for w in re.findall(r"[^\W_]+", word)
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    ["training hangs on one node", "rank 3 hangs", "GB200 run freezes mid training, every rank at 100% util"],
)
def test_no_hit_names_a_word_that_says_nothing(query):
    results = search_cases(query=query, limit=25, facets=False)
    hits = [*results.hits, *results.partial_hits]
    assert len(hits) >= 6
    for hit in hits:
        assert hit.why and not hit.why.startswith("Matches: ."), hit.case.id
        assert not [word for word in named_words(hit.why) if says_nothing(word)], (hit.case.id, hit.why)


@pytest.mark.django_db
def test_the_hits_that_named_fillers_name_the_other_words_or_say_why_otherwise():
    results = search_cases(query="training hangs on one node", facets=False)
    hits = {hit.case.id: hit for hit in [*results.hits, *results.partial_hits]}
    # The databases cut and mark snippets their own way: SQLite marked only `on` (the
    # case carries the topic and symptom the query names), PostgreSQL `one` among others;
    # the title's words the passage lacks follow (`trained`), then the query's words as typed
    # that the case's body holds outside both (`why_words.typed_words_held`: IL-0562 was
    # "Tagged: Training hangs, Training hang.", IL-0575 "Matches: node.").
    expected = (
        {"IL-0487": "Matches: node, training, hang, nodes, trained."}
        if connection.vendor == "postgresql"
        else {"IL-0562": "Matches: training hangs, node.", "IL-0575": "Matches: node, training hangs."}
    )
    assert {case_id: hits[case_id].why for case_id in expected} == expected


@pytest.mark.django_db
def test_an_identifier_typed_is_named_as_the_case_writes_it():
    [first, *_] = search_cases(query="xid 79", facets=False).hits
    # PostgreSQL marks `Xid` and `79` apart, FTS5 the phrase: both name it whole.
    assert (first.case.id, first.why) == ("IL-0523", "Matches: Xid 79.")
    results = search_cases(query="exitcode -9 killed", facets=False)
    hits = {hit.case.id: hit for hit in [*results.hits, *results.partial_hits]}
    # PostgreSQL's passage of IL-0431 leaves out its `-9`; IL-0563 marks a bare `9` there.
    if connection.vendor == "postgresql":
        assert hits["IL-0563"].why == "Matches: killing."
    else:
        assert hits["IL-0431"].why == "Matches: kill, -9."
