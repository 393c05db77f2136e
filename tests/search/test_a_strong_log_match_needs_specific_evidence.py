"""A log hit is strong only when the case shares evidence that names the failure: a rare
error token, or two code names or specific symptoms. What every failure of its kind prints
(torchrun's ChildFailedError, the CUDA_LAUNCH_BLOCKING hint), the settings a log echoes
(`enforce_eager=False`), a generic symptom (Training job failure) and component names are
not: logs of other failures share them (eval/logs.json's nomatch-* logs)."""

from __future__ import annotations

import pytest

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
        (Shared("NCCL", "pattern:component", 48), 0),
        (Shared("RoCE", "pattern:component", 1), 0),
    ],
)
def test_what_each_piece_of_shared_evidence_counts(shared, units):
    assert specific_units((shared,), TOTAL) == units


def test_the_thresholds_are_the_calibrated_ones():
    # eval/calibrate.py --logs on the tuning logs; see logmatch.THRESHOLDS.
    assert (THRESHOLDS.signature, THRESHOLDS.share_of_top, THRESHOLDS.specific) == (6.0, 0.9, 2)
    assert (THRESHOLDS.common_token, THRESHOLDS.generic_term) == (0.02, 0.1)


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
    hit = read_log(log).hits[0]
    assert (hit.case.id, hit.confidence) == ("IL-0429", "possible")
