"""Log lines pasted into the search box (a traceback is longer than a search reads) are
sent to log matching with one button, the lines as pasted: the walk's five lines of an NCCL
watchdog traceback (937 characters) got every case listed newest first instead."""

from __future__ import annotations

import re
from html import unescape

import pytest

from .html import element

pytestmark = pytest.mark.django_db

TRACEBACK = (
    "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=2841, OpType=ALLREDUCE, NumelIn=8388608, NumelOut=8388608, Timeout(ms)=600000) "
    "ran for 600172 milliseconds before timing out. "
    "[rank3]:[E ProcessGroupNCCL.cpp:1413] [PG 0 Rank 3] Timeout at NCCL work: 2841, last enqueued "
    "NCCL work: 2841, last completed NCCL work: 2840. "
    "[rank3]:[E ProcessGroupNCCL.cpp:630] [Rank 3] Some NCCL operations have failed or timed out. Due "
    "to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/"
    "incomplete data. "
    "[rank3]:[E ProcessGroupNCCL.cpp:636] [Rank 3] To avoid data inconsistency, we are taking the "
    "entire process down. "
    "terminate called after throwing an instance of 'c10::DistBackendError' what(): [PG 0 Rank 3] "
    "Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective "
    "operation timeout"
)


def test_the_button_sends_the_pasted_lines_to_log_matching(client):
    assert len(TRACEBACK) > 900
    html = client.get("/cases/", {"q": TRACEBACK}).content.decode()
    form = element(element(html, "div", class_="note notice log-paste"), "form")
    action = re.search(r'action="([^"]+)"', form).group(1)
    sent = unescape(re.search(r'name="text" value="([^"]*)"', form).group(1))
    assert (action, sent) == ("/match/", TRACEBACK)
    matched = client.post(action, {"text": sent})
    assert matched.status_code == 200
    codes = [found.term.slug for found in matched.context["reading"].error_codes]
    assert "processgroupnccl-watchdog-timeout" in codes
    assert matched.context["hits"]
