"""A log naming only components (NCCL, PyTorch, the GPU) and versions shows no failure: its
lines are not counted as carrying a signature, and the match page does not say the cases
it lists share its signatures."""

from __future__ import annotations

import pytest

from incidents.search import read_log

from .html import element, text_of

pytestmark = pytest.mark.django_db

NO_FAILURE = "NCCL INFO NCCL version 2.18.1+cuda12.1\nUsing PyTorch 2.1.0 on NVIDIA GPU\nhello\n"
XID79 = "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n"


def counts(reading) -> tuple[int, int, int, int]:
    return (reading.lines_read, reading.lines_with_signature, reading.lines_context, reading.lines_ignored)


def test_lines_naming_only_components_carry_no_signature():
    # The two lines naming components are context the cases listed share; `hello`, nothing.
    assert counts(read_log(NO_FAILURE)) == (3, 0, 2, 1)


def test_a_line_with_a_failure_still_counts():
    assert counts(read_log(NO_FAILURE + XID79)) == (4, 1, 2, 1)


def test_the_page_does_not_claim_shared_signatures(client):
    html = client.post("/match/", {"log": NO_FAILURE}).content.decode()
    heading = text_of(element(element(html, "section", class_="log-hits"), "h2"))
    # The cases listed share the component names and the NCCL version, nothing that failed.
    hits = len(read_log(NO_FAILURE, limit=10).hits)
    assert hits > 0
    assert heading == f"No known signature found; {hits} cases share only names or words of the log"
    # The lines those cases share are not also "nothing the cases know".
    assert (
        "Read 3 lines: 0 with a failure signature, 2 sharing only a name or word with a case below; "
        "ignored 1 with nothing the cases know."
    ) in text_of(html)


def test_the_api_counts_the_same(client):
    body = client.post("/api/match", {"text": NO_FAILURE}, content_type="application/json").json()
    reading = body["reading"]
    assert (reading["lines_with_signature"], reading["lines_context"], reading["lines_ignored"]) == (0, 2, 1)
