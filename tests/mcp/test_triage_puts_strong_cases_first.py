"""Triage orders cases by confidence first: a case the log match calls strong comes before
every possible one, and words added to the log do not push it off the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db

# A torchrun job (the log reads as training: context that lifts training cases) whose NCCL
# watchdog fired after a GPU fell off the bus: the Xid 79 is its specific evidence.
XID79_LOG = (
    "[Mon Mar 11 04:10:02 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>,"
    " GPU has fallen off the bus.\n"
    + (Path(__file__).parent.parent / "search" / "logs" / "torchrun-nccl-watchdog.log").read_text()
)
RANK = {"strong": 0, "possible": 1, "weak": 2}


def triaged(client, **body) -> list[tuple[str, str]]:
    answer = client.post("/api/triage", body, content_type="application/json").json()
    return [(case["id"], case["confidence"]) for case in answer["cases"]]


def strong_in_the_log(client) -> list[str]:
    hits = client.post("/api/match", {"text": XID79_LOG}, content_type="application/json").json()["results"]
    return [hit["id"] for hit in hits if hit["confidence"] == "strong"]


def test_the_log_s_strong_cases_come_before_its_possible_ones(client):
    # The premise: match_log calls the two Xid 79 cases strong, and the log reads as training,
    # which lifted training cases sharing the watchdog timeout above them.
    strong = strong_in_the_log(client)
    assert strong[:1] == ["IL-0523"]  # the Xid 79 case of a lost GPU
    cases = triaged(client, text=XID79_LOG)
    assert cases[: len(strong)] == [(case_id, "strong") for case_id in strong]
    assert {confidence for _, confidence in cases[len(strong) :]} == {"possible"}


def test_symptoms_added_to_the_log_keep_its_strong_cases(client):
    cases = triaged(client, symptoms="training hang", text=XID79_LOG)
    labels = [confidence for _, confidence in cases]
    assert labels == sorted(labels, key=RANK.__getitem__)  # never a possible case above a strong one
    assert set(strong_in_the_log(client)) <= {
        case_id for case_id, confidence in cases if confidence == "strong"
    }
    assert "IL-0523" in dict(cases)
