# ruff: noqa: E501 - real log lines are long and are kept whole
"""The error-code patterns of `fixtures/vocab.json` (issue 15, point 1): each code a fixture
case shows is found in a line quoted from that case (its saved primary text, else its own
text), each code no case shows in a line a public issue quotes (or, for the few with none
found, a line of its documented format), and none in near misses
(`Xid 79` is not `Xid 7`, a date, "79 hours", a count after "Xid errors:" or another code's
line)."""

from __future__ import annotations

import json

import pytest

from incidents.codes import CodeTerm, CodeVocabulary
from tests.conftest import VOCAB_FILE

CASES_DIR = VOCAB_FILE.parent / "cases"


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

# (case, line, the codes it shows): lines quoted as they appear in the saved primary text of
# the fixture case named (/work/coord/sources/IL-XXXX.txt when the case was written), some
# cut at a sentence or log-field boundary.
SOURCE_LINES = [
    (
        "IL-0481",
        "Xid errors on instance: ip-26-0-146-100, Error: May 19 07:08:57 ip-26-0-146-100 kernel: [680111.646286] NVRM: Xid (PCI:0000:10:1c): 63, pid=1850, Row Remapper: New row marked for remapping, reset gpu to activate",
        ["Xid 63"],
    ),
    (
        "IL-0482",
        "Xid errors on instance: ip-26-0-147-135, Error: May 29 01:37:38 ip-26-0-147-135 kernel: [257087.812628] NVRM: Xid (PCI:0000:90:1c): 64, ...",
        ["Xid 64"],
    ),
    (
        "IL-0482",
        "restarted w/o any rollback - about 45min after the Xid64 error was detected - first new iteration is 20686",
        ["Xid 64"],
    ),
    (
        "IL-0444",
        'For example, we observe PCIe errors often co-occur with XID 79 (GPU falling off the bus) and IPMI "Critical Interrupt" events.',
        ["Xid 79"],
    ),
    (
        "IL-0523",
        "**Current behavior.** When a GPU falls off the PCIe bus (Xid 79), the health checker correctly marks that device `Unhealthy`",
        ["Xid 79"],
    ),
    (
        "IL-0601",
        "`nvidia-device-plugin-daemonset` reports that there is XID 94 error is coming out in one of GPU card:",
        ["Xid 94"],
    ),
    (
        "IL-0498",
        "On 2026-09-10 08:08:46 `s9jvxs64` GPU 0 reported `Xid 149, NETIR_LINK_DOWN Fatal XC0 i0 Link 14`, and CoreWeave moved the node to `production-reboot` at 08:09:21.",
        ["Xid 149"],
    ),
    (
        "IL-0498",
        "`s9jvxs64` GPU 0 was the only GPU reporting Xid 149, the other 63 reported the downstream Xid 145, and it was the only node CoreWeave evicted.",
        ["Xid 145", "Xid 149"],
    ),
    (
        "IL-0499",
        "rank 1 on **`s2grxs64`** logged `CUDA_ERROR_CONTAINED: Invalid access of peer GPU memory over nvlink or a hardware error` (`gpu_cudamallocasync_allocator.cc:414`)",
        ["CUDA_ERROR_CONTAINED"],
    ),
    (
        "IL-0465",
        "RuntimeError: transform: failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered",
        ["cudaErrorECCUncorrectable"],
    ),
    ("IL-0465", "RuntimeError: CUDA error: out of memory", ["cudaErrorMemoryAllocation"]),
    (
        "IL-0494",
        "CtranIpc.cc:120] Cuda failure 400 'invalid resource handle'",
        ["cudaErrorInvalidResourceHandle", "NCCL Cuda failure"],
    ),
    (
        "IL-0531",
        "For `Error 802: system not yet initialized`, install `nvidia-fabricmanager`.",
        ["cudaErrorSystemNotReady"],
    ),
    ("IL-0431", "[default3]:  what():  CUDA error: unknown error", ["cudaErrorUnknown"]),
    ("IL-0479", "  what():  CUDA error: unknown error", ["cudaErrorUnknown"]),
    (
        "IL-0503",
        "node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'",
        ["cudaErrorInvalidValue", "NCCL Cuda failure"],
    ),
    (
        "IL-0486",
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.",
        ["cudaErrorIllegalState"],
    ),
    (
        "IL-0533",
        "The error of the original issue is `Error 804: forward compatibility was attempted on non supported HW`.",
        ["cudaErrorCompatNotSupportedOnDevice"],
    ),
    (
        "IL-0450",
        "-worker-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129",
        ["IBV_WC_RETRY_EXC_ERR", "NET/IB completion error"],
    ),
    (  # pytorch/pytorch#81628, the title
        "IL-0450",
        "NCCL WARN NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129",
        ["IBV_WC_RETRY_EXC_ERR", "NET/IB completion error"],
    ),
    (
        "IL-0485",
        "node-2:5776:5902 [0] transport/net_ib.cc:1296 NCCL WARN NET/IB : Got completion from peer 10.2.0.5<33092> with error 12, opcode 0, len",
        ["IBV_WC_RETRY_EXC_ERR", "NET/IB completion error"],
    ),
    (  # pytorch/ci-infra#490, the NCCL_DEBUG=INFO log of the 4xT4 reproduction
        "IL-0603",
        "[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202235 [0] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to 9637892 bytes, error: No space left on device (28)",
        ["ENOSPC", "NCCL shared memory segment failure"],
    ),
    (
        "IL-0603",
        "[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202235 [0] misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE (size 9637888), error: No space left on device (28)",
        ["ENOSPC", "NCCL shared memory segment failure"],
    ),
    (
        "IL-0603",
        "[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202238 [2] proxy.cc:1326 NCCL WARN Socket recv failed",
        ["NCCL socket connection lost"],
    ),
    (
        "IL-0606",
        "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
        ["ncclSystemError"],
    ),
    ("IL-0486", "ncclUnhandledCudaError: Call to CUDA function failed.", ["ncclUnhandledCudaError"]),
    (
        "IL-0486",
        "torch.distributed.DistBackendError: NCCL error in: /var/lib/jenkins/workspace/torch/csrc/distributed/c10d/NCCLUtils.cpp:93, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.29.3",
        ["ncclUnhandledCudaError"],
    ),
    (
        "IL-0463",
        "(RayWorkerVllm pid=5085) [E ProcessGroupNCCL.cpp:475] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=20518, OpType=ALLREDUCE, NumelIn=106496, NumelOut=106496, Timeout(ms)=1800000) ran for 1800270 milliseconds before timing out.",
        ["ProcessGroupNCCL watchdog timeout"],
    ),
    (
        "IL-0444",
        "We attribute a failure to a cause if the cause was detected within the last 10 minutes or 5 minutes after a failing job's lifetime (FAILED or NODE_FAIL).",
        ["NODE_FAIL"],
    ),
    (
        "IL-0603",
        'NCCL exceeds this on the first intra-node SHM segment allocation and fails any multi-GPU workload with "No space left on device (28)".',
        ["ENOSPC"],
    ),
]

# (case, line, codes): where the saved primary text does not hold the line (IL-0477's PR names
# "Xid codes 119 and 120" but prints no event; the others summarise), the case's own text, which
# import scans.
CASE_LINES = [
    (
        "IL-0477",
        "A GSP firmware bug in NVIDIA's 525 data-center drivers made RPCs to the GPU System Processor time out (Xid 119)",
        ["Xid 119"],
    ),
    ("IL-0605", "the node's Xid 45 count was in line with the other 17 nodes of its NVL72 rack", ["Xid 45"]),
    ("IL-0527", "Init containers or download jobs for large models were OOMKilled (exit 137)", ["OOMKilled"]),
    ("IL-0488", "vLLM's wake-up then failed with CUDA out of memory.", ["cudaErrorMemoryAllocation"]),
    # pytorch/ci-infra#490's log shows the result as a number ("NCCL INFO transport/shm.cc:551 -> 2");
    # the case names it.
    (
        "IL-0603",
        "NCCL's INFO trace carried result 2, ncclSystemError, up from the shared-memory transport.",
        ["ncclSystemError"],
    ),
]

# Codes no fixture case shows, and why each is in the vocabulary all the same (none of the
# primary sources of the cases named below prints one: IL-0443's is a paper abstract,
# IL-0532's vLLM/KServe threads describe the page fault in words, IL-0527's dynamo#9884 says
# "OOM-evicts the pod", IL-0606's llm-d#352 says "crashloop", IL-0580's TCPStore is a slow
# barrier, not a failure).
NOT_SHOWN = {
    # IL-0497 names the Xid 13 events of its hosts only to rule them out ("Xid codes 13 and 43"):
    # its text does not tag them.
    "Xid 13": "graphics engine exception; no case's failure printed one",
    "Xid 31": "common application fault; no case saw one",
    "Xid 48": "double-bit ECC, the pre-A100 form of Xid 94/95; no case saw one",
    "Xid 95": "uncontained ECC; no case saw one",
    # IL-0443 (since retired) quoted Xid 74 and Xid 43 shares and IL-0446 NCCLRemoteError from secondary
    # summaries of their papers; the supported-or-null pass removed them (fixtures/REVIEW.md).
    "Xid 43": "application fault that stopped a channel; no case quotes one",
    "Xid 74": "NVLink error; IL-0498 and IL-0563 describe NVLink faults, but no case quotes Xid 74",
    "ncclRemoteError": "NCCL result 6; no case quotes it",
    "cudaErrorIllegalAddress": "IL-0532 names an illegal memory access in prose, but no case quotes CUDA error 700",
    "IBV_WC_RNR_RETRY_EXC_ERR": "IB completion status 13; the cases' IB failures are status 12",
    "IBV_WC_LOC_PROT_ERR": "IB completion status 4 (GPUDirect registration); no case saw one",
    "IBV_WC_WR_FLUSH_ERR": "IB completion status 5, the flush that follows an earlier failure; no case quotes one",
    "ncclInternalError": "NCCL result 3; no case's NCCL failure was one",
    "ncclInvalidUsage": (
        "NCCL result 5; IL-0574's source (marin#6940) quotes its message `invalid usage` as a fragment, "
        "which no pattern takes alone (it is a common phrase); the case states the error in words (see REVIEW.md)"
    ),
    "TCPStore timeout": "rendezvous failures; no case quotes a DistStoreError",
    "CrashLoopBackOff": "IL-0606 describes a crashloop in words, not the pod status",
    "Evicted": "IL-0527 says pods were evicted, in words, not the status reason",
    "NodeNotReady": "no case quotes a node condition",
    "OUT_OF_MEMORY": "no case quotes a Slurm job state other than NODE_FAIL",
    "NCCL shared memory unlinked": "documented by NCCL (systemd removing /dev/shm files); no case saw it",
}

# (record, line, codes): lines of the codes no case shows, as the software printed them,
# pasted in a public issue (its URL first). Cut only at the ends, where a timestamp, host or
# log prefix went (noted); a title's "[Bug]: " tag dropped likewise.
PUBLIC_LINES = [
    (  # a DeepEP multi-node test through PyTorch, as the reporter pasted it
        "https://github.com/deepseek-ai/DeepEP/issues/106",
        "NET/IB : Got completion from peer 172.21.17.89<38536> with error 5, opcode 48, len 32710, vendor err 249",
        ["IBV_WC_WR_FLUSH_ERR", "NET/IB completion error"],
    ),
    (  # PyTorch's error as the commenter pasted it
        "https://github.com/NVIDIA/nccl/issues/934",
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1347, remote process exited or there was a network error, NCCL version 2.18.5",
        ["ncclRemoteError"],
    ),
    (
        "https://github.com/NVIDIA/nccl/issues/934",
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        ["ncclRemoteError"],
    ),
    (  # dmesg --ctime as the pull request documents it, "[Fri Aug 30 11:43:09 2024] " cut from the front
        "https://github.com/leptonai/gpud/pull/46",
        "NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter",
        ["Xid 13"],
    ),
    (  # kernel log pasted in the issue
        "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/363",
        "NVRM: Xid (PCI:0000:08:00): 31, pid=169800, name=chrome, Ch 00000023, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_HSCE0 faulted @ 0x0_0abe0000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ",
        ["Xid 31"],
    ),
    (  # "Dec  2 11:38:47 worker4 kernel: [  219.470994] " cut from the front
        "https://github.com/NVIDIA/gpu-operator/issues/1146",
        "NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x7fffa8860 partition 7, subpartition 1.",
        ["Xid 48"],
    ),
    (  # the title, "[Bug]: " cut
        "https://github.com/vllm-project/vllm/issues/12233",
        "RuntimeError: Error in model execution: CUDA error: an illegal memory access was encountered",
        ["cudaErrorIllegalAddress"],
    ),
    (  # the title: GPUDirect RDMA with nv_peer_mem loaded
        "https://github.com/NVIDIA/nccl/issues/214",
        "transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 21938, vendor err 81",
        ["IBV_WC_LOC_PROT_ERR", "NET/IB completion error"],
    ),
    (
        "https://github.com/NVIDIA/nccl/issues/928",
        "H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)",
        ["IBV_WC_LOC_PROT_ERR", "NET/IB completion error"],
    ),
    (
        "https://github.com/NVIDIA/nccl/issues/1247",
        "(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 ray_utils.py:45] torch.distributed.DistBackendError: NCCL error in: /root/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, internal error - please report this issue to the NCCL developers, NCCL version 2.18.6",
        ["ncclInternalError"],
    ),
    (
        "https://github.com/NVIDIA/nccl/issues/1247",
        "(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 ray_utils.py:45] ncclInternalError: Internal check failed.",
        ["ncclInternalError"],
    ),
    (
        "https://github.com/NVIDIA/Megatron-LM/issues/661",
        "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1727, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3",
        ["ncclInvalidUsage"],
    ),
    (
        "https://github.com/NVIDIA/Megatron-LM/issues/661",
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
        ["ncclInvalidUsage"],
    ),
    (  # the title, as PyTorch before the NCCL_DEBUG hint printed it
        "https://github.com/NVIDIA/nccl/issues/1241",
        "NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, invalid usage, NCCL version 2.17.1",
        ["ncclInvalidUsage"],
    ),
    (  # the title
        "https://github.com/OpenRLHF/OpenRLHF/issues/1040",
        "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined.",
        ["TCPStore timeout"],
    ),
    (  # kubectl get pods
        "https://github.com/NVIDIA/gpu-operator/issues/85",
        "nvidia-dcgm-exporter-4f8fz                                 0/1     CrashLoopBackOff   1106       3d20h",
        ["CrashLoopBackOff"],
    ),
    (  # kubectl get pods: the status column alone
        "https://github.com/kubernetes/kubernetes/issues/112927",
        "istio-citadel-894d98c88-zkt23               0/1     Evicted   0          102d",
        ["Evicted"],
    ),
    (  # kubectl describe pod
        "https://github.com/kubernetes/kubernetes/issues/112927",
        "Message:        The node was low on resource: memory. Container citadel was using 43536Ki, which exceeds its request of 0.",
        ["Evicted"],
    ),
    (  # kubectl describe pod
        "https://github.com/kubernetes/kubernetes/issues/91600",
        "Reason:         Evicted",
        ["Evicted"],
    ),
    (  # kubectl get nodes on an OpenPAI GPU cluster
        "https://github.com/microsoft/pai/issues/4589",
        "p100     NotReady   <none>   17h   v1.15.11",
        ["NodeNotReady"],
    ),
    (
        "https://github.com/jdblischak/smk-simple-slurm/issues/29",
        "slurmstepd: error: Detected 1 oom_kill event in StepId=65138579.batch. Some of the step tasks have been OOM Killed.",
        ["OUT_OF_MEMORY"],
    ),
    (  # seff's job state line
        "https://github.com/jdblischak/smk-simple-slurm/issues/29",
        "State: OUT_OF_MEMORY (exit code 0)",
        ["OUT_OF_MEMORY"],
    ),
    (  # older Slurm's wording
        "https://github.com/hafs-community/HAFS/issues/101",
        "slurmstepd: error: Detected 1 oom-kill event(s) in step 3495064.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.",
        ["OUT_OF_MEMORY"],
    ),
]

# Codes no case shows for which no public record printing one was found (issue search of
# NVIDIA/nccl, NVIDIA/open-gpu-kernel-modules, pytorch, vllm, openucx/ucx and GitHub file
# search, December 2026); their patterns are checked against the documented format only.
NO_REAL_LINE = {
    "Xid 43": (
        "issues name Xid 43 in words or counters (dcgm-exporter#95); none found pasting the kernel line"
    ),
    "Xid 74": (
        "the lines found are in monitoring tools' docs and fault-injection tests, not pasted from a failure"
    ),
    "Xid 95": (
        "no issue pastes a kernel line; the ones found are NVIDIA's own examples in the driver "
        "source and health-checker tests that copy them"
    ),
    "IBV_WC_RNR_RETRY_EXC_ERR": (
        "NCCL's IB issues show status 12, 4 and 5, UCX's issues synd 0x15; none shows status 13 or synd 0x16"
    ),
    "NCCL shared memory unlinked": (
        "only NCCL's troubleshooting page prints the line (and guides that copy it); the shm issues "
        "found are create/attach failures"
    ),
}

FORMAT_LINES = [
    ("NVRM: Xid (PCI:0000:3b:00): 95, pid=2411, Uncontained: FBHUB", ["Xid 95"]),
    ("NVRM: Xid (PCI:0000:3b:00): 43, pid=2411, name=python, Ch 00000008", ["Xid 43"]),
    (
        "NVRM: Xid (PCI:0000:3b:00): 74, pid=2411, name=python, NVLink: fatal error detected on link 0",
        ["Xid 74"],
    ),
    (
        "NET/IB : Got completion with error 13, opcode 1, len 0, vendor err 135",
        ["IBV_WC_RNR_RETRY_EXC_ERR", "NET/IB completion error"],
    ),
    # NCCL's Runtime and MPI issues page, the line it documents
    (
        "NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such file or directory",
        ["NCCL shared memory unlinked"],
    ),
]

NEAR_MISSES = [
    "NVRM: Xid (PCI:0000:3b:00): 7, pid=2411",  # Xid 7 is not Xid 79
    "Xid 790 is not a code we know",
    "Xid 63/64 events",  # Xid 63 only, not 64
    "java.lang.OutOfMemoryError: Java heap space",  # a JVM's heap, not PyTorch's CUDA allocator
    "Xid errors: 79 nodes were drained",  # a count after a label, not the code
    "The job ran for 79 hours before the 2024-07-09 restart",
    "rank 79 logged 119 warnings at 13:45",
    "the completion of step 3 took an error 12 minutes later",
    "sent 12 errors in total",
    "HTTP error 802 from proxy",
    "HTTP error 401 Unauthorized",
    "proxy returned error 804",
    "the node was evicted from the rotation",  # English, not the pod reason
    "the node was not ready for the job",
    "out of memory on the host (dmesg)",
    "TCPStore served every barrier",  # a mention, not a failure
    "NODE_FAILURE is not a Slurm state",
    # NCCL warning lines and IB completion statuses (issue 15)
    "node-2:5776:5898 [0] NCCL INFO NET/IB : Using [0]ibP111p0s0:1/IB [1]rdmaP1111p0s2:1/RoCE [RO]; OOB eth0:10.2.0.4<0>",
    "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
    "the job got completion from peer review before the deadline",
    "Got completion from peer 10.0.0.2<4433> (Recv)",  # no status: not a failed completion
    "CUDA failure rates fell after the driver update",
    "df -h /dev/shm shows 64M used of 64M",
    "NCCL INFO shared memory segment /dev/shm/nccl-Ab12Cd created (size 9637888)",
    "NCCL INFO unlink shared memory /dev/shm/nccl-d5rTd0",
    "ssh: Connection closed by remote host",
    "NCCL INFO socketProgress: sent 4096 bytes",
    "completion of the HTTP request returned status=404",
    "vendor err 129 (Recv)",  # a vendor syndrome alone does not say which status
    "(synd 0x4f vend 0x15)",  # 0x15 as the vendor syndrome, not the CQE syndrome
    "(synd 0x150 vend 0x81)",
    "retry count exceeded on the download",
    # the widened ncclInvalidUsage and Evicted patterns (real lines above)
    "the API reports invalid usage, NCCL version notes say so",
    "1/2 evicted from the rotation",  # lower case: not kubectl's status column
]


@pytest.mark.parametrize("case, line, codes", SOURCE_LINES + CASE_LINES)
def test_each_code_is_found_in_the_lines_the_cases_quote(case, line, codes):
    assert CODES.find(line) == codes, case


@pytest.mark.parametrize("record, line, codes", PUBLIC_LINES)
def test_codes_no_case_shows_are_found_in_lines_public_records_quote(record, line, codes):
    assert CODES.find(line) == codes, record


@pytest.mark.parametrize("line, codes", FORMAT_LINES)
def test_codes_without_a_real_line_are_found_in_their_documented_format(line, codes):
    assert CODES.find(line) == codes


# Completion lines whose status is not 12, 13, 4 or 5 (nor a number that starts with one): NCCL's
# line is tagged, no status is.
STATUS_NEAR_MISSES = [
    "Got completion from peer with error 120",
    "NET/IB : Got completion from peer 10.0.0.2<4433> with status=120 opcode=0",
    "NET/IB : Got completion with error 44, opcode 1, len 0",
    "NET/IB : Got completion from peer 10.0.0.2<4433> with error 52, opcode 48, len 0, vendor err 249",
    "NET/IB : Got completion from peer 10.0.0.2<4433> with status=1 opcode=0 len=0 vendor err 105",
]


@pytest.mark.parametrize("line", STATUS_NEAR_MISSES)
def test_other_completion_statuses_tag_only_the_nccl_line(line):
    assert CODES.find(line) == ["NET/IB completion error"]


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_near_misses_are_not_codes(line):
    found = CODES.find(line)
    if line == "Xid 63/64 events":
        assert found == ["Xid 63"]
    else:
        assert found == []


# Other spellings of codes the cases show, in the format the printing code writes them (not
# lines from a fixture source): NCCL 2.19+ prints `status=N` where older NCCL printed
# `with error N`, newer NCCL adds the status name; UCX and SPDK print the mlx5 CQE syndrome
# (rdma-core mlx5dv.h: 0x15 transport retry, 0x16 RNR retry, 0x04 local protection).
FORMAT_VARIANTS = [
    (
        "transport/net_ib.cc:2453 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<51161> with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_1",
        ["IBV_WC_RETRY_EXC_ERR", "NET/IB completion error"],
    ),
    (
        "NCCL WARN NET/IB: Got completion from peer 10.0.0.2<40554> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV_RDMA_WITH_IMM(129) vendor_err=129 hca mlx5_1",
        ["IBV_WC_RETRY_EXC_ERR", "NET/IB completion error"],
    ),
    (
        "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4433> with status=13 opcode=0 len=0 vendor err 135 (Send)",
        ["IBV_WC_RNR_RETRY_EXC_ERR", "NET/IB completion error"],
    ),
    (
        "NCCL WARN NET/IB: Got completion from peer node20<57713> with status=4 opcode=0 len=0 vendor err 81 (Send) hca mlx5_0",
        ["IBV_WC_LOC_PROT_ERR", "NET/IB completion error"],
    ),
    # an IB status no term covers (10, remote access): the NCCL line is still tagged
    (
        "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4433> with status=10 opcode=32656 len=0 vendor err 136 (Recv)",
        ["NET/IB completion error"],
    ),
    (
        "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4433> with status=5 opcode=32656 len=0 vendor err 249 (Recv)",
        ["IBV_WC_WR_FLUSH_ERR", "NET/IB completion error"],
    ),
    ("Error on QP 0x1a2 wqe[012]: Work Request Flushed Error (synd 0x5 vend 0xf9)", ["IBV_WC_WR_FLUSH_ERR"]),
    (
        "ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
        ["IBV_WC_RETRY_EXC_ERR"],
    ),
    (
        "Error on QP 0x1a2 wqe[012]: Receive-no-ready retry count exceeded (synd 0x16 vend 0x88)",
        ["IBV_WC_RNR_RETRY_EXC_ERR"],
    ),
    ("Error on QP 0x1a2 wqe[012]: Local protection (synd 0x4 vend 0x56)", ["IBV_WC_LOC_PROT_ERR"]),
    ("NCCL WARN Cuda failure 'out of memory'", ["cudaErrorMemoryAllocation", "NCCL Cuda failure"]),
    # PyTorch's exception for a failed CUDA allocation: `torch.cuda.OutOfMemoryError`, since 2.5
    # also `torch.OutOfMemoryError`, named alone where a program catches it.
    (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 79.14 GiB of which 1.12 GiB is free.",
        ["cudaErrorMemoryAllocation"],
    ),
    (
        "[rank3] caught torch.cuda.OutOfMemoryError at step 1200, retrying with micro-batch 2",
        ["cudaErrorMemoryAllocation"],
    ),
    ("except torch.OutOfMemoryError:", ["cudaErrorMemoryAllocation"]),
    ("NCCL WARN Cuda failure 10 'invalid device ordinal'", ["NCCL Cuda failure"]),  # not error 1
    (
        "misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer node1<57557>",
        ["NCCL socket connection lost"],
    ),
    (
        "misc/socket.cc:50 NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<35601> failed : Connection reset by peer",
        ["NCCL socket connection lost"],
    ),
    (
        "include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
        ["ENOSPC", "NCCL shared memory segment failure"],
    ),
    # a store connection reset is the TCPStore code, not an NCCL socket
    (
        "torch.distributed.DistNetworkError: TCPStore recvValue failed: Connection reset by peer",
        ["TCPStore timeout"],
    ),
]


@pytest.mark.parametrize("line, codes", FORMAT_VARIANTS)
def test_other_formats_of_shown_codes_are_found(line, codes):
    assert CODES.find(line) == codes


def test_every_code_a_case_shows_has_a_line_from_the_cases_and_the_rest_say_why_not():
    shown = {
        code
        for path in CASES_DIR.glob("IL-*.json")
        for code in json.loads(path.read_text(encoding="utf-8"))["symptoms"].get("error_codes", [])
    }
    quoted = {code for _, _, codes in SOURCE_LINES + CASE_LINES for code in codes}
    assert shown <= quoted, shown - quoted
    assert set(NOT_SHOWN) == {term.name for term in CODES.terms} - shown
    # a line may also show a code a case shows (the NCCL line of an IB status)
    public = {code for _, _, codes in PUBLIC_LINES for code in codes} - shown
    documented = {code for _, codes in FORMAT_LINES for code in codes} - shown
    assert set(NOT_SHOWN) == public | documented
    assert set(NO_REAL_LINE) == documented and not public & documented


def test_a_code_is_named_by_any_spelling():
    assert [CODES.resolve(s) for s in ("xid-79", "XID 79", "Xid79", "GPU has fallen off the bus")] == [
        "Xid 79"
    ] * 4
    assert CODES.resolve("Xid 7") is None
    assert [CODES.resolve(s) for s in ("torch.cuda.OutOfMemoryError", "torch.OutOfMemoryError")] == [
        "cudaErrorMemoryAllocation"
    ] * 2
    assert CODES.resolve("OutOfMemoryError") is None  # a JVM's too: the symptom's, not this code's


def each_pattern_alone(text: str) -> list[str]:
    """The codes of `text` by searching each compiled pattern on its own."""
    return [name for name, patterns in CODES._compiled if any(p.search(text) for p in patterns)]


ALL_LINES = [
    *(line for _, line, _ in SOURCE_LINES + CASE_LINES + PUBLIC_LINES),
    *(line for line, _ in FORMAT_LINES + FORMAT_VARIANTS),
    *NEAR_MISSES,
    *STATUS_NEAR_MISSES,
]


def test_one_scan_of_every_pattern_finds_what_each_pattern_finds_alone():
    # Lines as quoted, a whole case's text, and text RE2 must fold beyond ASCII.
    texts = [
        *ALL_LINES,
        "\n".join(ALL_LINES),
        "GPU ÉTAT: XID 79 — GPU HAS FALLEN OFF THE BUS",
        "ﬁle Xid 79 ü",
    ]
    found = [CODES.find(text) for text in texts]
    assert found == [each_pattern_alone(text) for text in texts]
    assert sum(1 for codes in found if codes) > len(ALL_LINES) // 2
    assert len(found[len(ALL_LINES)]) > 20  # the whole text shows most codes at once


def test_a_set_that_reports_nothing_is_searched_pattern_by_pattern():
    # RE2's set answers no match at all when its automaton runs out of memory.
    class OutOfMemory:
        def Match(self, text):
            return None

    codes = vocabulary()
    assert codes._set is not None
    codes._set = (OutOfMemory(), codes._set[1])
    line = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."
    assert codes.find(line) == ["Xid 79"] == each_pattern_alone(line)
