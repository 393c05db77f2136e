"""A healthy vLLM server's start-up log (model loading, `Loading safetensors checkpoint
shards`, `Avg prompt throughput`, INFO lines, no error) shares only module names and echoed
settings with the cases of that server (`api_server`, `tensor_parallel_size`,
`enforce_eager`): every hit is weak and triage says nothing like it is known (`log_trouble`;
a new user's report, issue 17: they were "possible"). A log showing something going wrong
keeps its labels, even when its only shared evidence is code names: a hung process's stack
dump (tests/search/test_log_matching.py, `ONE_SYMPTOM_ONLY`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.log_lines import LogLines
from incidents.search.log_text import unique_lines
from incidents.search.log_trouble import TROUBLE
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
    assert matched[0]["id"] == "IL-0463"
    assert {hit["confidence"] for hit in matched} == {"weak"}


def test_an_error_line_keeps_the_labels():
    failed = LOG + "ERROR 12-07 09:02:10 [engine.py:160] RuntimeError: CUDA error: an illegal memory access\n"
    assert "possible" in {hit.confidence for hit in read_log(failed).hits}


@pytest.mark.parametrize(
    ("line", "trouble"),
    [
        ("INFO:     Started server process [1]", False),
        ("WARNING 12-07 09:00:10 [config.py:549] Casting torch.bfloat16 to torch.float16.", False),
        ("INFO 12-07 09:01:16 [metrics.py:455] Avg prompt throughput: 512.3 tokens/s", False),
        ("ERROR 12-07 10:14:02 [async_llm_engine.py:61] Engine background task failed", True),
        ("Traceback (most recent call last):", True),
        ('  File "/app/redis/asyncio/client.py", line 514, in execute_command', True),
        ("Thread 0x00007f1c9e4e5740 (most recent call first):", True),
        ('Thread 2713 (idle): "MainThread"', True),
        ("    broadcast (torch/distributed/distributed_c10d.py:1191)", True),
        ("asyncio.exceptions.CancelledError", True),
    ],
)
def test_which_lines_show_trouble(line, trouble):
    assert bool(LogLines(unique_lines(line)).lines_matching(TROUBLE)) is trouble
