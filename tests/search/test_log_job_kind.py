"""The kind of job a log shows (training or inference) is read from the launcher's lines
too, and weighs log matching and triage: a torchrun job's NCCL watchdog timeout is a
training failure, not the vLLM (inference) hang that quotes the same watchdog line."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from incidents import triage as triage_module
from incidents.search import read_log
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db

# A `python -m torch.distributed.run` job: NCCL's watchdog fires on an ALLREDUCE, then the
# elastic agent reports the ChildFailedError with its local_rank. No line says "train".
TORCHRUN_LOG = (Path(__file__).parent / "logs" / "torchrun-nccl-watchdog.log").read_text(encoding="utf-8")
LAUNCHER = (
    "torch.distributed",
    "ChildFailedError",
    "local_rank",
    "runpy",
    "run(args)",
    "main()",
    "return f(",
)
VLLM_CASE = "IL-0463"  # vLLM servers hung on the same watchdog line: an inference case


def watchdog_lines_only() -> str:
    return "\n".join(line for line in TORCHRUN_LOG.splitlines() if not any(m in line for m in LAUNCHER))


def test_the_launchers_lines_say_it_is_a_training_job():
    assert read_log(TORCHRUN_LOG).job_kind == "training"
    # The watchdog lines alone say neither (vLLM's tensor-parallel all-reduce prints them too).
    assert read_log(watchdog_lines_only()).job_kind is None


@pytest.mark.parametrize(
    "line",
    [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "[2024-03-11 06:49:58,012] torch.distributed.elastic.multiprocessing.api: [ERROR] failed"
        " (exitcode: -6) local_rank: 5 (pid: 211879) of binary: /opt/conda/bin/python",
        "+ torchrun --nnodes=2 --nproc_per_node=8 run_llm.py",
        "INFO:torch.distributed.elastic.agent.server.local_elastic_agent:log directory set to: /tmp/x",
    ],
)
def test_each_launcher_line_alone_reads_as_training(line):
    assert read_log(line).job_kind == "training"


def test_a_training_log_ranks_training_cases_before_the_vllm_hang():
    alone = read_log(watchdog_lines_only()).hits
    # Without the launcher, the exact watchdog phrase keeps the vLLM case near the top.
    assert VLLM_CASE in [h.case.id for h in alone[:3]]
    hits = read_log(TORCHRUN_LOG).hits
    assert hits[0].case.id != VLLM_CASE
    # Every case above the vLLM one is a training case, four of them at least. (It is 5th
    # since similar cases correct for hubness: IL-0579, 4th before as one of the first hit's
    # similar cases, left that list; the vLLM case's own score fell, 15.83 -> 15.66.)
    ranked = [h.case.id for h in hits]
    above = ranked[: ranked.index(VLLM_CASE)] if VLLM_CASE in ranked else ranked
    assert len(above) >= 4
    assert all(load_fixture(case_id)["environment"]["workload"] == "training" for case_id in above), above
    first = load_fixture(hits[0].case.id)
    assert first["environment"]["workload"] == "training"
    assert "NCCL timeout" in hits[0].matched_terms


def test_an_inference_log_keeps_its_inference_case_first():
    log = (Path(__file__).parents[2] / "eval" / "logs" / "vllm-watchdog.log").read_text(encoding="utf-8")
    reading = read_log(log)
    assert reading.job_kind == "inference"
    assert reading.hits[0].case.id == VLLM_CASE


def test_triage_weighs_the_kind_the_log_shows():
    answer = triage_module.triage(log=TORCHRUN_LOG)
    assert answer.candidates[0].case.id != VLLM_CASE
    assert "The log reads as a training job: weighed as context." in answer.notes
    assert "training job" in answer.candidates[0].context_fit
    for candidate in answer.candidates:
        if candidate.case.id == VLLM_CASE:
            assert candidate.context_misfit == ["the case is about inference, not training"]
    # A kind the caller states wins over the log's, and is not reported as read from it.
    stated = triage_module.triage(log=TORCHRUN_LOG, context=triage_module.TriageContext(job="inference"))
    assert not any(note.startswith("The log reads as") for note in stated.notes)
    training = [
        c for c in stated.candidates if load_fixture(c.case.id)["environment"]["workload"] == "training"
    ]
    assert training
    assert all(c.context_misfit == ["the case is about training, not inference"] for c in training)


def test_a_training_log_that_shows_inference_too_keeps_inference_cases():
    # A GRPO job (training lines) whose vLLM rollout engine leaked host memory (two vLLM
    # lines): the vLLM leak (IL-0524, an inference case) was tenth, disfavoured as a case of
    # a kind of job the log did not show; the log shows both.
    log = Path(__file__).parents[2] / "eval" / "logs" / "t2-vllm-grpo-host-oom.log"
    reading = read_log(log.read_text(encoding="utf-8"))
    assert reading.job_kind == "training"
    assert "IL-0524" in [h.case.id for h in reading.hits[:5]]


def test_throughput_lines_of_a_training_loop_do_not_make_it_an_inference_job():
    # Training loops print tokens/s as servers do; a line naming both kinds names neither.
    steps = "\n".join(f"[step {n}] tokens/s=4000" for n in range(20))
    reading = read_log(steps + "\n" + TORCHRUN_LOG)
    assert reading.job_kind == "training"
    assert reading.hits[0].case.id != VLLM_CASE
    both = "\n".join(f"step {n} | loss={2.3 - n / 100:.2f} lr=3e-4 | tokens/s={4000 + n}" for n in range(20))
    assert read_log(both + "\n" + TORCHRUN_LOG).job_kind == "training"


def test_an_inference_log_is_named_with_its_article():
    log = (Path(__file__).parents[2] / "eval" / "logs" / "vllm-watchdog.log").read_text(encoding="utf-8")
    answer = triage_module.triage(log=log)
    assert "The log reads as an inference job: weighed as context." in answer.notes
    page = Client().post("/match/", {"text": log}).content.decode()
    assert "lines of an inference job:" in page and "of a inference job" not in page
