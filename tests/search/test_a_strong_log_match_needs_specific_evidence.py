"""A log hit is strong only when the case shares evidence that names the failure: a rare
error token, or two code names or specific symptoms. What every failure of its kind prints
(torchrun's ChildFailedError, the CUDA_LAUNCH_BLOCKING hint), the settings a log echoes
(`enforce_eager=False`), a generic symptom (Training job failure) and component names are
not: logs of other failures share them (eval/logs.json's nomatch-* logs)."""

from __future__ import annotations

import dataclasses

import pytest

from incidents.search import logmatch
from incidents.search.logmatch import THRESHOLDS, Shared, names_the_failure, read_log, specific_units

pytestmark = pytest.mark.django_db

TOTAL = 167  # published fixture cases; the shares below are of these
ID, SYMPTOM = "token:identifier", "name:symptom"


@pytest.mark.parametrize(
    ("shared", "units"),
    [
        (Shared("Xid 79", "token:xid", 2), 2),
        (Shared("ncclAllReduce", "token:nccl-result", 2), 2),
        (Shared("timed out", "token:phrase", 16), 1),  # an error phrase in many cases
        (Shared("save_checkpoint", "token:identifier", 8), 1),
        (Shared("NCCL_IB_TIMEOUT", "token:env", 3), 1),
        (Shared("ChildFailedError", "token:exception", 1), 0),  # torchrun's wrapper of any failure
        (Shared("local_rank", "token:identifier", 2), 0),
        (Shared("CUDA_LAUNCH_BLOCKING", "token:env", 3), 0),
        (Shared("enforce_eager", "token:setting", 1), 0),  # `enforce_eager=False` in a config line
        (Shared("Storage full", "pattern:symptom", 4), 1),
        (Shared("Training job failure", "pattern:symptom", 27), 0),  # whatever the cause
        (Shared("NCCL timeout", "pattern:symptom", 9, listed=2), 1),
        (Shared("NCCL timeout", "pattern:symptom", 9, listed=13), 0),  # one of a census's many
        (Shared("NCCL", "pattern:component", 48), 0),
        (Shared("RoCE", "pattern:component", 1), 0),
    ],
)
def test_what_each_piece_of_shared_evidence_counts(shared, units):
    assert specific_units((shared,), TOTAL) == units


def test_the_thresholds_are_the_calibrated_ones():
    # eval/calibrate.py --logs on the tuning logs; see logmatch.THRESHOLDS.
    assert (THRESHOLDS.signature, THRESHOLDS.share_of_top, THRESHOLDS.specific) == (11.0, 0.9, 2)
    assert (THRESHOLDS.common_token, THRESHOLDS.generic_term, THRESHOLDS.survey_symptoms) == (0.02, 0.1, 4)


def test_a_vllm_config_line_finds_the_vllm_case_but_not_strongly():
    log = (
        "INFO 05-14 09:31:02 llm_engine.py:161] Initializing an LLM engine (v0.4.2) with config:"
        " model='/models/qwen2-72b', tensor_parallel_size=4, enforce_eager=False\n"
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/entrypoints/openai/api_server.py",'
        " line 168, in <module>\n"
    )
    hit = read_log(log).hits[0]
    assert hit.case.id == "IL-0463"
    assert {"tensor_parallel_size", "enforce_eager"} <= set(hit.matched_terms)
    assert hit.confidence == "possible"


def test_a_torchrun_failure_summary_alone_is_never_strong():
    log = (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "  rank      : 12 (local_rank: 4)\n"
        "  exitcode  : 1 (pid: 88213)\n"
        "  error_file: <N/A>\n"
        "RuntimeError: CUDA error: device-side assert triggered\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
    )
    hits = read_log(log).hits
    assert hits and all(h.confidence != "strong" for h in hits)


def test_a_rare_error_code_is_still_strong():
    log = "[Mon Jun  3 02:41:17 2024] NVRM: Xid (PCI:0000:b7:00): 79, pid=1913, GPU has fallen off the bus.\n"
    hit = read_log(log).hits[0]
    assert hit.case.id in ("IL-0444", "IL-0523")
    assert hit.confidence == "strong"


@pytest.mark.parametrize(
    ("shared", "names"),
    [
        # Two code names: the same program ran, not the same failure.
        ((Shared("output_dir", "token:identifier", 2), Shared("save_checkpoint", ID, 8)), False),
        # One rare exception type alone: as often a coincidence as the failure.
        ((Shared("FooBarError", "token:exception", 1),), False),
        ((Shared("FooBarError", "token:exception", 1), Shared("save_checkpoint", ID, 8)), True),
        ((Shared("Storage full", "pattern:symptom", 4), Shared("Control plane overload", SYMPTOM, 3)), True),
        # A generic symptom and a component count for nothing.
        ((Shared("Xid 79", "token:xid", 2), Shared("Training job failure", "pattern:symptom", 27)), False),
        # One common failure word beside a code name: any log of that kind of failure.
        ((Shared("NCCL error", "pattern:symptom", 13), Shared("all_reduce_perf", ID, 4)), False),
        ((Shared("timed out", "token:phrase", 16), Shared("save_checkpoint", ID, 8)), False),
        ((Shared("Loss spike", SYMPTOM, 11), Shared("grad_norm", ID, 6)), False),
        # ... but two of them, or one that few cases share, name it.
        ((Shared("timed out", "token:phrase", 16), Shared("NCCL timeout", "pattern:symptom", 9)), True),
        # ... unless the symptom is one of the many a survey lists: the common word is alone.
        (
            (Shared("timed out", "token:phrase", 16), Shared("NCCL timeout", "pattern:symptom", 9, (), 13)),
            False,
        ),
        ((Shared("cudaErrorMemoryAllocation", "pattern:error_code", 3), Shared("optim_state", ID, 10)), True),
    ],
)
def test_strong_needs_two_pieces_one_naming_the_failure(shared, names):
    assert names_the_failure(shared, TOTAL) is names


def test_one_common_failure_word_and_a_program_name_are_not_strong():
    # The NVLS `Cuda failure 1 'invalid argument'` of nccl-tests (IL-0503's failure): IL-0429
    # shares `all_reduce_perf` and the words `NCCL error` / `CUDA error`, which every
    # nccl-tests failure prints. It ranks first on them, but only as possible (strong before).
    log = (
        "root@node-07:~# mpirun --allow-run-as-root -np 8 ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 1\n"
        "node-07:918310:918360 [0] NCCL WARN Cuda failure 1 'invalid argument'\n"
        "node-07: Test NCCL failure common.cu:1005 'unhandled cuda error (run with NCCL_DEBUG=INFO "
        "for details)'\n"
    )
    labels = [(hit.case.id, hit.confidence) for hit in read_log(log).hits]
    assert ("IL-0429", "possible") in labels
    # The log has three lines: each is searched as words too (`log_as_words`), and the search
    # of its `Cuda failure` line calls IL-0503 strong: its own case leads, strong.
    assert labels[0] == ("IL-0503", "strong")
    assert read_log(log + "iteration 1 | lm loss 2.3\n").hits[0].case.id == "IL-0429"


def _read_with_evidence(log: str, monkeypatch) -> list[tuple[str, str, tuple, dict]]:
    """(case id, confidence, what `confidence` was given) of each hit of `log`."""
    given: list[tuple[tuple, dict]] = []
    original = logmatch.confidence

    def keep(*args, **kwargs):
        given.append((args, kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(logmatch, "confidence", keep)
    hits = read_log(log).hits
    return [(h.case.id, h.confidence, a, k) for h, (a, k) in zip(hits, given, strict=True)]


def _strong_at_the_top(args: tuple, kwargs: dict, thresholds=THRESHOLDS) -> bool:
    """Whether a hit's evidence would be strong were it the best hit."""
    return logmatch.confidence(args[0], args[1], 1.0, 1.0, **{**kwargs, "thresholds": thresholds}) == "strong"


def test_the_symptoms_a_census_case_shares_do_not_make_it_strong(monkeypatch):
    # An SFT job's CUDA OOM on one huge sample, then the other ranks' watchdog: IL-0631, the
    # census of a training platform's incidents (13 symptoms), lists both `Out of memory` and
    # `NCCL timeout`. It comes first, but the OOM is not a failure it tells.
    log = (
        "[rank3]:[I0304 11:20:41] finetune.py:97] step 412 | loss 0.9821 | seq_len 118400\n"
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/app/finetune.py", line 88, in train_step\n'
        "[rank3]:     out = model(batch)\n"
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 28.00 GiB. GPU 3 has a"
        " total capacity of 79.15 GiB of which 9.10 GiB is free.\n"
        "[rank0]:[E0304 11:50:41.120 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective"
        " operation timeout: WorkNCCL(SeqNum=8810, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,"
        " Timeout(ms)=1800000) ran for 1800031 milliseconds before timing out.\n"
    )
    hits = _read_with_evidence(log, monkeypatch)
    assert [case_id for case_id, confidence, _, _ in hits if confidence == "strong"] == []
    census = next((a, k) for case_id, _, a, k in hits if case_id == "IL-0631")
    symptoms = {s.name: s.listed for s in census[1]["shared"] if s.kind.endswith(":symptom")}
    assert symptoms == {"Out of memory": 13, "NCCL timeout": 13}
    # The survey rule is what keeps its symptoms from counting: counted as any case's, they
    # add two specific units. (It no longer shares the OOM line's token: `CUDA out of memory`
    # is read whole, and the census does not quote it.)
    assert not _strong_at_the_top(*census)
    shared = census[1]["shared"]
    assert specific_units(shared, census[1]["total"]) == 1  # `train_step`, a code name
    any_case = dataclasses.replace(THRESHOLDS, survey_symptoms=1000)
    assert specific_units(shared, census[1]["total"], any_case) == 3


def test_the_nccl_watchdog_timeout_alone_is_never_strong(monkeypatch):
    # Ranks waiting in a broadcast that one rank never joined: the watchdog's lines are what
    # any hang ends in. The cases quoting them are possible, whichever ranks first.
    log = "".join(
        f"[rank{r}]:[E0511 02:14:09.5{r}1 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective"
        f" operation timeout: WorkNCCL(SeqNum=5120, OpType=BROADCAST, NumelIn=1, NumelOut=1,"
        f" Timeout(ms)=1800000) ran for 180012{r} milliseconds before timing out.\n"
        for r in range(1, 4)
    ) + (
        "[rank1]:[E0511 02:14:09.611 ProcessGroupNCCL.cpp:630] [Rank 1] Some NCCL operations have failed"
        " or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might"
        " run on corrupted/incomplete data.\n"
    )
    hits = _read_with_evidence(log, monkeypatch)
    assert hits and all(confidence == "possible" for _, confidence, _, _ in hits[:3])
    assert not any(_strong_at_the_top(a, k) for _, _, a, k in hits)
    # Their evidence names a failure (`timed out` and `NCCL timeout`) but weighs too little:
    # at the signature of 6 that held before, the first hit was strong.
    _, _, args, kwargs = hits[0]
    assert args[0] < THRESHOLDS.signature
    assert _strong_at_the_top(args, kwargs, dataclasses.replace(THRESHOLDS, signature=6.0))
