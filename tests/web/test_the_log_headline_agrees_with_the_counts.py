"""The /match/ page's headline and its count of lines agree: it said "No known signature
found" over "Read 4 lines: 1 with a known signature" when a line carried a signature no case
has (an exception type no case names), and "1 case sharing signatures with the log" of a
case found by the log's rare words alone (a new user's walkthrough). The headline now reads
the same counts: the lines with a signature, and the hits that share one
(`LogHit.signature`)."""

from __future__ import annotations

import pytest

from incidents.search import read_log

from .html import element, text_of

pytestmark = pytest.mark.django_db

UNKNOWN_EXCEPTION = (
    'Traceback (most recent call last):\n  File "x.py", line 3\nWidgetSnarlError: it snarled\nbye\n'
)
RARE_WORDS_ONLY = "ZorblaxTimeoutError: decoupled turbomind rollout\n"


def page(client, log: str) -> tuple[str, str, str]:
    html = client.post("/match/", {"log": log}).content.decode()
    section = element(html, "section", class_="log-hits")
    return text_of(element(section, "h2")), text_of(element(section, "p", class_="log-reading")), section


def test_a_signature_no_case_has_is_not_called_no_signature(client):
    reading = read_log(UNKNOWN_EXCEPTION)
    assert (reading.lines_with_signature, reading.hits) == (1, [])
    heading, counts, section = page(client, UNKNOWN_EXCEPTION)
    assert heading == "Signatures found, no case with them"
    assert counts == "Read 4 lines: 1 with a failure signature; ignored 3 with nothing the cases know."
    assert "No case shares the failure signatures of these lines." in text_of(section)


def test_a_case_sharing_only_rare_words_is_not_said_to_share_signatures(client):
    [hit] = read_log(RARE_WORDS_ONLY).hits
    assert not hit.signature
    heading, _, _ = page(client, RARE_WORDS_ONLY)
    assert heading == "No case shares the log's signatures; 1 case shares only names or words of the log"


def test_cases_sharing_signatures_are_counted_apart_from_the_rest(client):
    # IL-0517 quotes the NVML message; the other cases share only NCCL and its version.
    log = "$ nvidia-smi\nFailed to initialize NVML: Unknown Error\nNCCL INFO NCCL version 2.18.1+cuda12.1\n"
    reading = read_log(log)
    shared = reading.hits_with_signature
    assert [hit.case.id for hit in reading.hits if hit.signature] == ["IL-0517"]
    assert len(reading.hits) > 1
    heading, _, _ = page(client, log)
    assert heading == (
        f"{len(reading.hits)} cases: {shared} sharing signatures with the log,"
        " the rest only names or words of it"
    )
