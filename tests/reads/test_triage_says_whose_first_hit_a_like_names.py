# ruff: noqa: E501 - real log lines are long and are kept whole
"""Triage says whose first hit "Similar to IL-0606, ..." names when it is not triage's own first.

A search or log hit listed as like its source's first hit ends its `why` with `Similar to
IL-0606, the first hit.`; triage passes the `why` on, and when it ranked another case first
(here IL-0532, the word search's first, strong on the words and fifth in the log match) the
sentence read "the first hit" of a list whose first case is IL-0532, IL-0606 second (walk
finding W7). The sentence now names its source when the hit it names is not triage's first;
when it is, the source's words stand (`test_triage_names_the_case_like_the_first_hit.py`).
"""

from __future__ import annotations

import pytest

from incidents.triage import TriageContext, triage

pytestmark = pytest.mark.django_db

SYMPTOMS = "inference server stopped responding, all requests 500"
# A vLLM engine dying on an NCCL system error (the walk's vllm_err.log).
LOG = """\
INFO 12-07 14:20:01 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 64 reqs, Swapped: 0 reqs, Pending: 112 reqs, GPU KV cache usage: 99.1%
ERROR 12-07 14:25:01 async_llm_engine.py:63] Engine background task failed
ERROR 12-07 14:25:01 async_llm_engine.py:63] Traceback (most recent call last):
ERROR 12-07 14:25:01 async_llm_engine.py:63]   File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 53, in _log_task_completion
ERROR 12-07 14:25:01 async_llm_engine.py:63] RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5
ERROR 12-07 14:25:01 async_llm_engine.py:63] ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.
INFO:     10.0.3.17:51290 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error
"""


def test_a_like_of_the_log_match_first_hit_names_the_log_match(client):
    answer = triage(symptoms=SYMPTOMS, log=LOG, context=TriageContext(job="inference"))
    first, second = answer.candidates[:2]
    assert (first.case.id, first.confidence, first.like) == ("IL-0532", "strong", "IL-0606")
    assert (second.case.id, second.confidence, second.like) == ("IL-0606", "strong", None)
    assert first.reasons == [
        "Matches: inference, requests, server, responding.",
        "Context: vLLM. Similar to IL-0606, the log match's first hit.",
    ]
    for candidate in answer.candidates:
        said = " ".join(candidate.reasons)
        assert "the first hit" not in said, candidate.case.id
        assert said.endswith("Similar to IL-0606, the log match's first hit.") == (
            candidate.like == "IL-0606"
        ), candidate.case.id
    body = client.post(
        "/api/triage",
        {"symptoms": SYMPTOMS, "text": LOG, "job": "inference"},
        content_type="application/json",
    ).json()
    assert [(case["id"], case["like"]) for case in body["cases"]][:2] == [
        ("IL-0532", "IL-0606"),
        ("IL-0606", None),
    ]
    assert body["cases"][0]["why"]["text"] == (
        "Matches: inference, requests, server, responding. Context: vLLM. Similar to IL-0606, the"
        " log match's first hit."
    )


def test_a_like_of_triage_first_case_keeps_the_source_words():
    # The log alone: its first hit is triage's first case, so "the first hit" is true here.
    answer = triage(log=LOG, context=TriageContext(job="inference"))
    assert answer.candidates[0].case.id == "IL-0606"
    liked = [c for c in answer.candidates if c.like == "IL-0606"]
    assert liked
    for candidate in liked:
        assert candidate.reasons[-1].endswith("Similar to IL-0606, the first hit."), candidate.case.id
