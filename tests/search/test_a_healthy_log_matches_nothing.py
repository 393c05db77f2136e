"""A healthy vLLM server's start-up log (model loading, `Loading safetensors checkpoint
shards`, `Avg prompt throughput`, INFO lines, no error) shares only module names and echoed
settings with the cases of that server (`api_server`, `tensor_parallel_size`,
`enforce_eager`): every hit is weak, and triage says nothing like it is known
(`log_confidence.tells_a_failure`; a new user's report, issue 17: they were "possible")."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.log_confidence import Shared, confidence, tells_a_failure
from incidents.triage import NOTHING_KNOWN, triage

pytestmark = pytest.mark.django_db

LOG = (Path(__file__).parent / "logs" / "vllm-healthy-start-up.log").read_text(encoding="utf-8")


def test_every_hit_is_weak():
    read = read_log(LOG)
    assert read.job_kind == "inference"
    assert read.hits and {hit.confidence for hit in read.hits} == {"weak"}
    assert read.hits[0].case.id == "IL-0463"  # the vLLM case echoing the same settings, weak


def test_triage_and_the_api_say_nothing_is_known(client):
    assert NOTHING_KNOWN in triage(log=LOG).notes
    matched = client.post("/api/match", LOG, content_type="text/plain").json()["results"]
    assert {hit["confidence"] for hit in matched} == {"weak"}


def test_names_alone_tell_no_failure():
    names = (
        Shared("api_server", "token:identifier", 6),
        Shared("enforce_eager", "token:setting", 1),
        Shared("vLLM", "name:component", 13),
        Shared("vLLM 0.7.3", "version:affected", 1),
    )
    assert not any(tells_a_failure(item) for item in names)
    assert confidence(16.0, 3, 16.0, 16.0, shared=names, total=173) == "weak"
    failure = (*names, Shared("illegal memory access", "token:phrase", 8))
    assert tells_a_failure(failure[-1])
    assert confidence(16.0, 4, 16.0, 16.0, shared=failure, total=173) == "possible"
    # Without the shared evidence (a caller that has none) the weight decides, as before.
    assert confidence(16.0, 3, 16.0, 16.0) == "possible"
