# ruff: noqa: E501 - real log lines are long and are kept whole
"""The error-code patterns of `fixtures/vocab.json` (issue 15, point 1): each code is found
in real lines of the kind the fixture cases quote, and not in near misses (`Xid 79` is not
`Xid 7`, a date, "79 hours" or another code's line)."""

from __future__ import annotations

import json

import pytest

from incidents.codes import CodeTerm, CodeVocabulary
from tests.conftest import VOCAB_FILE


def vocabulary() -> CodeVocabulary:
    codes = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))["error_codes"]
    return CodeVocabulary(
        CodeTerm(
            c["name"],
            c["slug"],
            c["vendor"],
            (c["slug"], c["name"], *c.get("synonyms", [])),
            tuple(c["patterns"]),
        )
        for c in codes
    )


CODES = vocabulary()

# (line, the codes it shows): lines in the formats the tools print, as the fixture cases
# quote them (kernel log, NCCL WARN, PyTorch, CUDA, kubectl, sacct).
REAL_LINES = [
    ("[ 5821.934] NVRM: Xid (PCI:0000:3b:00): 79, pid=2411, GPU has fallen off the bus.", ["Xid 79"]),
    ("NVRM: Xid (PCI:0000:b7:00): 94, pid=91732, name=python, Contained: SM (0x1)", ["Xid 94"]),
    ("NVRM: Xid (PCI:0000:18:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row", ["Xid 63"]),
    ("NVRM: Xid (PCI:0000:18:00): 64, pid='<unknown>', Row Remapper Error: failed to record", ["Xid 64"]),
    (
        "NVRM: Xid (PCI:0000:9d:00): 119, pid=1912, name=nvidia-smi, Timeout after 6s of waiting for RPC",
        ["Xid 119"],
    ),
    ("the GPU reported Xid 149 (NETIR_LINK_DOWN, fatal) on link 14", ["Xid 149"]),
    ("Xid 145 on the other 63 GPUs of the rack", ["Xid 145"]),
    ("NVRM: Xid (PCI:0000:c1:00): 74, pid=3361, NVLink: fatal error detected on link 6", ["Xid 74"]),
    ("node12: NVRM: Xid (PCI:0000:3b:00): 45, pid=88, Ch 00000010", ["Xid 45"]),
    ("NVRM: Xid (PCI:0000:07:00): 13, Graphics Exception on GPC 0", ["Xid 13"]),
    (
        "node-7:1234:1301 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<44332> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
        ["IBV_WC_RETRY_EXC_ERR"],
    ),
    ("NET/IB : Got completion with error 13, opcode 1, len 0, vendor err 135", ["IBV_WC_RNR_RETRY_EXC_ERR"]),
    (
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
        ["ncclSystemError"],
    ),
    (
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        ["ncclRemoteError"],
    ),
    ("NCCL failure: 'unhandled cuda error' (ncclUnhandledCudaError)", ["ncclUnhandledCudaError"]),
    (
        "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=20518, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800002 milliseconds before timing out.",
        ["ProcessGroupNCCL watchdog timeout"],
    ),
    (
        "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
        ["TCPStore timeout"],
    ),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", ["cudaErrorIllegalAddress"]),
    (
        "RuntimeError: CUDA error: system not yet initialized (cudaErrorSystemNotReady)",
        ["cudaErrorSystemNotReady"],
    ),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", ["cudaErrorMemoryAllocation"]),
    ("RuntimeError: CUDA error: uncorrectable ECC error encountered", ["cudaErrorECCUncorrectable"]),
    ("cuMemcpyAsync failed: CUDA_ERROR_INVALID_HANDLE", ["cudaErrorInvalidResourceHandle"]),
    ("the driver returned CUDA_ERROR_CONTAINED to the process", ["CUDA_ERROR_CONTAINED"]),
    ("trainer-0   0/1   OOMKilled   3   12m", ["OOMKilled"]),
    ("vllm-0   0/1   CrashLoopBackOff   7 (2m ago)   20m", ["CrashLoopBackOff"]),
    ("Status: Failed  Reason: Evicted  Message: The node was low on resource: memory.", ["Evicted"]),
    ("gpu-node-3   NotReady   <none>   41d   v1.29.4", ["NodeNotReady"]),
    ("1234567   train   NODE_FAIL   1:0", ["NODE_FAIL"]),
    ("slurmstepd: error: Detected 1 oom_kill event in StepId=42.0.", ["OUT_OF_MEMORY"]),
    ("OSError: [Errno 28] No space left on device: '/dev/shm/nccl-AbC'", ["ENOSPC"]),
]

NEAR_MISSES = [
    "NVRM: Xid (PCI:0000:3b:00): 7, pid=2411",  # Xid 7 is not Xid 79
    "Xid 790 is not a code we know",
    "Xid 63/64 events",  # Xid 63 only, not 64
    "The job ran for 79 hours before the 2024-07-09 restart",
    "rank 79 logged 119 warnings at 13:45",
    "Got completion from peer with error 120",
    "sent 12 errors in total",
    "the node was evicted from the rotation",  # English, not the pod reason
    "the node was not ready for the job",
    "out of memory on the host (dmesg)",
    "TCPStore served every barrier",  # a mention, not a failure
    "NODE_FAILURE is not a Slurm state",
]


@pytest.mark.parametrize("line, codes", REAL_LINES)
def test_each_code_is_found_in_real_lines(line, codes):
    assert CODES.find(line) == codes


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_near_misses_are_not_codes(line):
    found = CODES.find(line)
    if line == "Xid 63/64 events":
        assert found == ["Xid 63"]
    else:
        assert found == []


def test_every_code_has_a_real_line_or_is_listed_as_common():
    # Codes no fixture case shows yet are in the vocabulary because they are common; the
    # lines above cover the ones the cases show and most of the rest.
    covered = {code for _, codes in REAL_LINES for code in codes}
    untested = {term.name for term in CODES.terms} - covered
    assert untested == {
        "Xid 31",
        "Xid 43",
        "Xid 48",
        "Xid 95",
        "ncclInternalError",
        "ncclInvalidUsage",
        "IBV_WC_LOC_PROT_ERR",
        "cudaErrorUnknown",
    }


def test_a_code_is_named_by_any_spelling():
    assert [CODES.resolve(s) for s in ("xid-79", "XID 79", "Xid79", "GPU has fallen off the bus")] == [
        "Xid 79"
    ] * 4
    assert CODES.resolve("Xid 7") is None
