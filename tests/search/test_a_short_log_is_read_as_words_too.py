"""A log of a line or a few is also read as words (`log_as_words`): the NET/IB error line a
case quotes is as strong through log matching and triage's `text` as through search and
triage's `symptoms` (walk finding 30: as `text` it was "Nothing like this is known")."""

from __future__ import annotations

import pytest

from incidents.search import read_log, search_cases
from incidents.search.log_as_words import QUERY_LINES, strong_as_words
from incidents.triage import NOTHING_KNOWN, triage

pytestmark = pytest.mark.django_db

LINE = (
    "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<49212> with error 12, opcode 0, len 0,"
    " vendor err 129"
)


def labels(hits) -> list[tuple[str, str]]:
    return [(hit.case.id, hit.confidence) for hit in hits]


def test_the_line_as_a_log_is_as_strong_as_its_search():
    searched = labels(search_cases(query=LINE, limit=5, facets=False).hits)
    assert searched[:2] == [("IL-0450", "strong"), ("IL-0485", "possible")]
    read = labels(read_log(LINE).hits)
    # The case the search calls strong leads, strong; the other RoCE case stays possible.
    assert read[:2] == [("IL-0450", "strong"), ("IL-0485", "possible")]
    assert "strong" not in {label for _, label in read[1:]}


def test_triage_says_the_same_of_the_line_as_text_or_as_symptoms():
    as_text = triage(log=LINE)
    as_symptoms = triage(symptoms=LINE)
    assert as_text.known and as_symptoms.known and NOTHING_KNOWN not in as_text.notes
    first = as_text.candidates[0]
    assert (first.case.id, first.confidence) == ("IL-0450", "strong")
    assert (as_symptoms.candidates[0].case.id, as_symptoms.candidates[0].confidence) == ("IL-0450", "strong")
    assert first.line_numbers == [1]


def test_the_api_and_mcp_triage_read_the_line_in_text(client):
    from tests.mcp.conftest import InMemoryMcp

    api = client.post("/api/triage", {"text": LINE}, content_type="application/json").json()
    tool = InMemoryMcp().ok("triage", text=LINE)
    for answer in (api, tool):
        assert answer["known"] is True
        assert (answer["cases"][0]["id"], answer["cases"][0]["confidence"]) == ("IL-0450", "strong")
    matched = client.post("/api/match", {"text": LINE}, content_type="application/json").json()["results"]
    assert (matched[0]["id"], matched[0]["confidence"]) == ("IL-0450", "strong")


def test_only_a_log_of_a_few_short_lines_is_searched():
    assert strong_as_words([LINE]) == {"IL-0450"}
    assert strong_as_words([LINE, *(f"iteration {n} | lm loss 2.3" for n in range(QUERY_LINES))]) == set()
    assert strong_as_words([LINE + " x" * 250]) == set()


def test_a_search_strong_case_the_log_shares_no_signature_with_stays_out():
    # A healthy line: whatever the search of it says, the log shares no signature with a
    # case, so no hit is strong.
    read = read_log("INFO: Started server process [1]\nINFO: Uvicorn running on http://0.0.0.0:8000\n")
    assert all(hit.confidence != "strong" for hit in read.hits)
