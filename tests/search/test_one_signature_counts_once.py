"""A failure signature counts once for a log hit's confidence, however many pieces of
evidence find it: the ProcessGroupNCCL watchdog code and its own phrase, found at the same
span of one line, are one signature, not the two a strong hit needs. And the list never
puts a strong hit below one that is not strong: the rare words a case shares add to its
score, not to its label, so the label follows the order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incidents.search.logmatch import Shared, names_the_failure, read_log, specific_units

pytestmark = pytest.mark.django_db

TOTAL = 173  # published fixture cases
WATCHDOG = (
    "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "
    "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 milliseconds before timing out."
)
PHRASE = Shared("watchdog caught collective operation timeout", "token:phrase", 1, ((1, 9, 53),))
CODE = Shared("ProcessGroupNCCL watchdog timeout", "pattern:error_code", 3, ((1, 9, 53), (1, 55, 126)))
SYMPTOM = Shared("NCCL timeout", "pattern:symptom", 9, ((1, 9, 53),))
EVAL = Path(__file__).resolve().parents[2] / "eval"


def test_a_code_and_its_own_phrase_at_one_place_are_one_signature():
    # Before: 2 + 1 + 1 units from three pieces, strong evidence from one message.
    shared = (PHRASE, CODE, SYMPTOM)
    assert specific_units(shared, TOTAL) == 2
    assert names_the_failure(shared, TOTAL) is False


def test_the_code_on_a_line_of_its_own_is_a_second_signature():
    # vllm-watchdog.log: the watchdog line, then `Some NCCL operations have failed or timed
    # out` on the next line, which only the code's pattern reads.
    code = Shared(CODE.name, CODE.kind, CODE.cases, (*CODE.places, (2, 54, 99)))
    assert specific_units((PHRASE, code, SYMPTOM), TOTAL) == 3
    assert names_the_failure((PHRASE, code, SYMPTOM), TOTAL) is True


def test_two_places_of_one_line_are_two_signatures():
    # `NVRM: Xid (PCI:0000:b7:00): 79, pid=1913, GPU has fallen off the bus.`
    shared = (
        Shared("fallen off the bus", "token:phrase", 1, ((1, 77, 95),)),
        Shared("Xid 79", "token:xid", 2, ((1, 33, 57),)),
        Shared("Xid 79", "pattern:error_code", 2, ((1, 33, 57), (1, 77, 95))),
    )
    assert specific_units(shared, TOTAL) == 4
    assert names_the_failure(shared, TOTAL) is True


def test_evidence_without_a_place_counts_as_before():
    shared = (Shared("FooBarError", "token:exception", 1), Shared("save_checkpoint", "token:identifier", 8))
    assert specific_units(shared, TOTAL) == 3
    assert names_the_failure(shared, TOTAL) is True


def test_one_watchdog_line_is_not_a_strong_hit():
    reading = read_log(WATCHDOG)
    hits = {hit.case.id: hit for hit in reading.hits}
    # IL-0463 (vLLM) shares the phrase, the code and the symptom, all at the line's first span.
    assert hits["IL-0463"].confidence == "possible"
    assert [h.confidence for h in reading.hits[:3]] == ["possible"] * 3
    assert {"IL-0610", "IL-0615"} <= set(hits)
    [line] = hits["IL-0463"].lines
    assert line.spans == ((9, 53), (55, 126))


def test_the_whole_watchdog_message_is_still_strong():
    hit = read_log((EVAL / "logs" / "vllm-watchdog.log").read_text()).hits[0]
    assert (hit.case.id, hit.confidence) == ("IL-0463", "strong")


def test_a_single_xid_79_line_is_still_strong():
    log = "[Mon Jun  3 02:41:17 2024] NVRM: Xid (PCI:0000:b7:00): 79, pid=1913, GPU has fallen off the bus.\n"
    hit = read_log(log).hits[0]
    assert (hit.case.id, hit.confidence) == ("IL-0523", "strong")


@pytest.mark.parametrize(
    ("log", "first", "below"),
    [
        # IL-0517 (NVML lost in a container after a systemd reload) ranks first, possible; IL-0431
        # (strong before) second on the CUDA unknown error alone.
        ("t2-nvml-unknown-error.log", "IL-0517", "IL-0431"),
        ("t2-nvls-invalid-argument.log", "IL-0486", "IL-0429"),
    ],
)
def test_a_hit_below_a_possible_one_is_not_strong(log, first, below):
    hits = read_log((EVAL / "logs" / log).read_text()).hits
    assert (hits[0].case.id, hits[0].confidence) == (first, "possible")
    [lower] = [h for h in hits if h.case.id == below]
    assert lower.confidence == "possible"


def test_strong_hits_head_every_tuning_logs_list():
    for item in json.loads((EVAL / "logs.json").read_text())["logs"]:
        labels = [hit.confidence for hit in read_log((EVAL / item["file"]).read_text(), limit=20).hits]
        strong = labels.count("strong")
        assert labels[:strong] == ["strong"] * strong, (item["file"], labels)
