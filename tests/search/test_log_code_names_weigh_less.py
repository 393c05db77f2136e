"""In log matching's ranking, a code name or environment variable weighs less than a failure
token as rare (`NAMING_WEIGHT`), and the code names and settings read on one line count once,
as the heaviest of them (`log_scores.naming_part`): they say which program ran and how it was set up,
which every failure of that program shares. Confidence reads their full weight."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import log_scores, read_log

pytestmark = pytest.mark.django_db

# A DeepSpeed fp16 run overflowing until its loss goes NaN; one stack frame names DeepSpeed's
# `loss_scaler.py`, whose code name `loss_scaler` one case of another failure quotes (IL-0468:
# the FusedAdam step counter lost across checkpoints, its loss-scaler state named in passing).
FP16_OVERFLOW = "\n".join(
    (
        "[2023-05-02 11:20:00] [INFO] [logging.py:96:log_dist] [Rank 0] step=8120, skipped=12, lr=[1.2e-04]",
        " iteration     8121/  200000 | lm loss: 2.412E+00 | loss scale: 8192.0 | grad norm: 0.291 |",
        " iteration     8122/  200000 | lm loss: 2.988E+00 | loss scale: 8192.0 | grad norm: 41.77 |",
        "[2023-05-02 11:20:31] [INFO] [stage_1_and_2.py:1793:step] [deepspeed] OVERFLOW! Rank 0 Skipping"
        " step. Attempted loss scale: 8192, reducing to 4096",
        "[2023-05-02 11:20:41] [INFO] [stage_1_and_2.py:1793:step] [deepspeed] OVERFLOW! Rank 0 Skipping"
        " step. Attempted loss scale: 4096, reducing to 2048",
        '  File "/opt/deepspeed/runtime/fp16/loss_scaler.py", line 183, in update_scale',
        " iteration     8125/  200000 | lm loss: 7.903E+00 | loss scale: 1024.0 | grad norm: nan |",
    )
)
CHECKPOINT_STEP_CASE = "IL-0468"
FP16_DIVERGENCE_CASES = {"IL-0430", "IL-0435", "IL-0469", "IL-0480", "IL-0482", "IL-0560"}

# vLLM's engine line echoes its configuration (settings shared by every vLLM case quoting
# that line, IL-0463's hang among them); the assertion names the MLA prefix-caching failure
# (IL-0515, `context_chunk_seq_tot`).
VLLM_MLA_ASSERT = "\n".join(
    (
        "INFO 03-05 10:12:01 llm_engine.py:234] Initializing an LLM engine (v0.7.2) with config:"
        " model='deepseek-ai/DeepSeek-V2-Lite', tensor_parallel_size=2, enforce_eager=False,"
        " disable_custom_all_reduce=False, enable_prefix_caching=True, enable_chunked_prefill=False",
        "INFO 03-05 10:12:44 api_server.py:937] Started server process",
        "ERROR 03-05 10:15:10 engine.py:139]     assert prefill_metadata.context_chunk_seq_tot is not None",
        "ERROR 03-05 10:15:10 engine.py:139] AssertionError",
    )
)
MLA_CASE, VLLM_HANG_CASE = "IL-0515", "IL-0463"


def ids(text: str) -> list[str]:
    return [hit.case.id for hit in read_log(text).hits]


def summed_per_token(held: dict[str, float], line: str, weight: float) -> float:
    return weight  # as before: every token adds its weight, whatever its line


def test_a_lines_naming_tokens_add_their_heaviest_whatever_the_order():
    held: dict[str, float] = {}
    assert log_scores.naming_part(held, "config line", 3.0) == 3.0
    assert log_scores.naming_part(held, "config line", 2.0) == 0.0  # lighter, same line
    assert log_scores.naming_part(held, "config line", 5.0) == 2.0  # heavier: what it adds over 3
    assert log_scores.naming_part(held, "stack frame", 1.5) == 1.5  # another line counts apart
    assert held == {"config line": 5.0, "stack frame": 1.5}
    other: dict[str, float] = {}
    parts = [log_scores.naming_part(other, "config line", w) for w in (5.0, 2.0, 3.0)]
    assert parts == [5.0, 0.0, 0.0]
    assert sum(parts) + log_scores.naming_part(other, "stack frame", 1.5) == 6.5


def test_a_rare_code_name_no_longer_outranks_the_failure_the_log_shows(monkeypatch):
    ranked = ids(FP16_OVERFLOW)
    assert ranked[0] in FP16_DIVERGENCE_CASES
    assert CHECKPOINT_STEP_CASE not in ranked[:5]
    # Weighed as a failure token, the one code name put the checkpoint case first.
    monkeypatch.setattr(log_scores, "NAMING_WEIGHT", 1.0)
    assert ids(FP16_OVERFLOW)[0] == CHECKPOINT_STEP_CASE


def test_an_echoed_configuration_line_counts_once(monkeypatch):
    ranked = ids(VLLM_MLA_ASSERT)
    assert ranked[:2] == [MLA_CASE, VLLM_HANG_CASE]
    # Each setting of the engine line adding its weight put the hang that quotes the same
    # line first, at the code share alone as at full weight.
    monkeypatch.setattr(log_scores, "naming_part", summed_per_token)
    assert ids(VLLM_MLA_ASSERT)[:2] == [VLLM_HANG_CASE, MLA_CASE]
    monkeypatch.setattr(log_scores, "NAMING_WEIGHT", 1.0)
    assert ids(VLLM_MLA_ASSERT)[:2] == [VLLM_HANG_CASE, MLA_CASE]


def test_confidence_reads_the_full_weights(monkeypatch):
    # A TGI shard's py-spy dump: its case (IL-0464) is strong on NCCL's frames, code names
    # (`ncclEnqueueCheck`, `groupLaunch`, `sched_yield`); weighing them less in the ranking
    # lowers its score and changes no label.
    log = (Path(__file__).parents[2] / "eval" / "logs" / "tgi-pyspy.log").read_text(encoding="utf-8")
    now = read_log(log).hits
    monkeypatch.setattr(log_scores, "NAMING_WEIGHT", 1.0)
    monkeypatch.setattr(log_scores, "naming_part", summed_per_token)
    before = read_log(log).hits
    assert now[0].case.id == before[0].case.id == "IL-0464"
    assert "ncclEnqueueCheck" in now[0].matched_terms
    assert now[0].confidence == before[0].confidence == "strong"
    assert now[0].score < before[0].score
    labels = {hit.case.id: hit.confidence for hit in before}
    assert {hit.case.id: hit.confidence for hit in now if hit.case.id in labels} == {
        case_id: label for case_id, label in labels.items() if case_id in {h.case.id for h in now}
    }
