"""An exception name is never corrected into another word, and a generic one alone lists
no case.

`q=OSError` was "corrected" to `error` (difflib 0.83), so 116 of 172 cases matched on
`error` alone, every hit `possible` with "Matches: error." (a new user's walkthrough); a
pasted `OSError: [Errno 28] No space left on device` was searched as `error: ...`. The
README's "Queries as people type them" says a generic exception name tells no case from
another: beside other words it is left out; alone it lists no case, a note saying what
would (`RuntimeError` alone made IL-0465, which quotes it, a strong match).
"""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.spelling import is_exception_name

pytestmark = pytest.mark.django_db

LONE = (
    "{} is printed by too many failures to tell them apart, so no case is listed: add the"
    " message printed after it, or paste the log into log matching."
)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("OSError", True),
        ("oserror", True),  # a generic name in any case
        ("DistBackendError", True),
        ("ChildFailedError", True),
        ("UserWarning", True),
        ("CheckpointException", True),
        ("error", False),
        ("Exception", False),
        ("timout", False),
        ("Errors", False),
    ],
)
def test_exception_names_are_told_apart(word, expected):
    assert is_exception_name(word) is expected


@pytest.mark.parametrize("query", ["OSError", "RuntimeError", "RuntimeError 28", "ValueError RuntimeError"])
def test_a_lone_generic_exception_name_lists_no_case(query):
    results = search_cases(query=query)
    assert results.suggestion is None
    assert (results.total, results.partial_total, results.hits, results.partial_hits) == (0, 0, [], [])
    names = " ".join(w for w in query.split() if w.isalpha())
    if " " in names:
        names = names.replace(" ", ", ")
        expected = LONE.format(names).replace("is printed", "are printed").replace("after it", "after them")
    else:
        expected = LONE.format(names)
    assert expected in results.notes
    assert not any("searched for" in note for note in results.notes)


def test_a_pasted_line_keeps_its_exception_name_uncorrected():
    query = "checkpoint save failed: OSError: [Errno 28] No space left on device"
    results = search_cases(query=query)
    assert results.suggestion is None
    assert "OSError is printed by too many failures to tell them apart: searched without it." in results.notes
    assert not any("searched for" in note for note in results.notes)
    # Searched without it, the line is the no-space failure, not every case saying `error`.
    assert results.total < 116
    assert results.hits and all(hit.why != "Matches: error." for hit in results.hits)


def test_an_unknown_specific_exception_name_is_said_to_be_in_no_case():
    # `DistBackendEror` is one edit from nothing useful and in no case: named, not rewritten.
    results = search_cases(query="DistBackendEror NCCL timeout")
    assert results.suggestion is None
    assert "No case contains “DistBackendEror”: searched without it." in results.notes


def test_the_api_says_so_too(client):
    body = client.get("/api/cases/", {"q": "OSError"}).json()
    assert (body["count"], body["results"]) == (0, [])
    assert LONE.format("OSError") in body["notes"]
