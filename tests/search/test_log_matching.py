"""Log matching: real-looking logs point at their cases, each hit says which lines matched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from incidents.models import Facet, Term
from incidents.search import match_log
from incidents.search.log_text import unique_lines
from incidents.search.log_tokens import failure_tokens
from incidents.search.log_versions import component_versions
from incidents.search.logmatch import MAX_LOG_BYTES, decode_log, read_log
from tests.conftest import ids_quoting

pytestmark = pytest.mark.django_db

EVAL = Path(__file__).resolve().parents[2] / "eval"
LOGS = json.loads((EVAL / "logs.json").read_text())["logs"]
MATCHING = [i for i in LOGS if i["relevant"]]
NO_MATCH = [i for i in LOGS if not i["relevant"]]
# The second batch of tuning logs (`t2-*`, 2 December 2026), written by a helper who never
# ran the matcher: harder (many show only symptoms), so the bar is the top 5, not first.
FIRST_BATCH = [i for i in MATCHING if not i["file"].startswith("logs/t2-")]
SECOND_BATCH = [i for i in MATCHING if i["file"].startswith("logs/t2-")]
# Second-batch logs whose case the matcher does not put in its top 5, and why: the failures
# the matcher cannot read yet (kept visible here rather than dropped from the set).
# (The NCCL hang under `CUDA_LAUNCH_BLOCKING=1` left it when a debugging variable the job
# itself exports began to be looked up; as a hint, `consider passing ...=1`, it is not.)
# (The Triton decoupled-stream leak left this list when the log's rare words began to count:
# a log with no error line whose own words, `decoupled` and `turbomind`, name its case.)
# (The NVLS `Bind mem` hang left it when the first hit's similar cases began to rank up:
# IL-0567 shares only NCCL 2.19.3 with the log, and is among its first hit's similar cases.)
# (The NVLS `Bind mem` hang left it on PostgreSQL, where IL-0567 was sixth, 0.05 below fifth,
# when `logmatch.NAMING_WEIGHT` was re-chosen after the hubness-corrected similar lists:
# fourth there, third on SQLite. Its case still shares only NCCL 2.19.3 with the log.)
NOT_IN_TOP_5: set[str] = set()


@pytest.mark.parametrize("item", FIRST_BATCH, ids=[i["file"].split("/")[-1] for i in FIRST_BATCH])
def test_each_benchmark_log_puts_a_relevant_case_first(item):
    hits = match_log((EVAL / item["file"]).read_text(encoding="utf-8"))
    assert hits[0].case.id in item["relevant"]


@pytest.mark.parametrize("item", SECOND_BATCH, ids=[i["file"].split("/")[-1] for i in SECOND_BATCH])
def test_each_second_batch_log_puts_a_relevant_case_in_the_top_5_unless_known(item):
    top = [hit.case.id for hit in match_log((EVAL / item["file"]).read_text(encoding="utf-8"))[:5]]
    found = any(case_id in item["relevant"] for case_id in top)
    # A known miss that starts matching is news too: move it out of NOT_IN_TOP_5.
    assert found is (item["file"] not in NOT_IN_TOP_5)


# Logs whose only evidence is one symptom or component names (pods pending; loss diverged;
# a Redis request cancelled): many cases fit them, so their best hit is possible, not strong.
ONE_SYMPTOM_ONLY = {
    "logs/fp16-loss-scale.log",
    "logs/kubelet-image-pull.log",
    "logs/nccl-tests-acs.log",  # an NCCL error and the ACSCtl flags of PCIe
    "logs/redis-cancel.log",
    # Code names only (`distributed_c10d`, `pretrain_gpt`; `output_dir`, `save_checkpoint`):
    # the same program ran, which does not say it failed the same way (`names_the_failure`).
    "logs/deepspeed-pipe-broadcast.log",
    "logs/deepspeed-save-hang.log",
}


# The confidence thresholds were calibrated on the first batch (`eval/calibrate.py --logs`).
@pytest.mark.parametrize("item", FIRST_BATCH, ids=[i["file"].split("/")[-1] for i in FIRST_BATCH])
def test_a_log_with_a_specific_signature_is_a_strong_match(item):
    hit = match_log((EVAL / item["file"]).read_text(encoding="utf-8"))[0]
    assert hit.confidence == ("possible" if item["file"] in ONE_SYMPTOM_ONLY else "strong")


@pytest.mark.parametrize("item", NO_MATCH, ids=[i["file"].split("/")[-1] for i in NO_MATCH])
def test_a_log_of_an_unknown_failure_gets_no_strong_match(item):
    # Shared code identifiers (`local_rank`) and component names alone are not evidence
    # of the same failure (`logmatch.confidence`).
    hits = match_log((EVAL / item["file"]).read_text(encoding="utf-8"))
    assert [h.case.id for h in hits if h.confidence == "strong"] == []


def test_hit_lists_the_lines_and_terms_that_matched():
    log = (EVAL / "logs/xid79-node-fail.log").read_text()
    hit = match_log(log)[0]
    assert hit.case.id == "IL-0444"
    by_term: dict[str, set[int]] = {}
    for line in hit.lines:
        for term in line.terms:
            by_term.setdefault(term, set()).add(line.line_number)
    assert by_term["GPU unavailable"] >= {1, 2}  # "fallen off the bus", Xid 79
    assert by_term["Xid error"] == {1}  # "NVRM: Xid"
    assert by_term["Node NotReady"] == {4, 5}  # NODE FAILURE, NODE_FAIL
    assert by_term["Xid 79"] == {1}  # extracted token found in the case
    assert hit.lines[0].line.startswith("[Mon Jun  3 02:41:17 2024] NVRM: Xid")
    assert {"GPU unavailable", "Xid error", "Node NotReady", "Xid 79"} <= set(hit.matched_terms)


def test_nccl_watchdog_log_finds_the_vllm_hang():
    log = (EVAL / "logs/vllm-watchdog.log").read_text()
    hit = match_log(log)[0]
    assert hit.case.id == "IL-0463"
    assert "NCCL timeout" in hit.matched_terms
    assert "vLLM" in hit.matched_terms


def test_nothing_identifying_gives_an_empty_list():
    assert match_log("all good\nstep 10 loss 2.31\n") == []
    assert match_log("") == []


def test_encoding_garbage_and_nul_bytes_are_tolerated():
    garbage = b"\xff\xfe\x00\x80 NVRM: Xid (PCI:0000:87:00): 79, GPU has fallen off the bus\x00\xc3"
    hits = match_log(garbage)
    assert hits[0].case.id in ids_quoting("Xid 79")  # IL-0444 and IL-0523 both quote it
    assert "\x00" not in decode_log(garbage)


def test_text_is_cut_at_one_megabyte():
    assert len(decode_log("é" * MAX_LOG_BYTES).encode("utf-8")) <= MAX_LOG_BYTES
    assert len(decode_log(b"a" * (MAX_LOG_BYTES + 10))) == MAX_LOG_BYTES


def test_hostile_input_is_matched_by_linear_time_regular_expressions_only():
    # Linear time is RE2's guarantee (no backtracking), so the test checks the mechanism,
    # not a stopwatch: every extractor and term pattern is an RE2 program, a pattern that
    # needs backtracking (a back-reference) is refused, and near-miss lines that make
    # backtracking engines explode are read without error.
    import re2

    from incidents.search.patterns import EXTRACTORS, compile_pattern, pattern_problem

    assert all(isinstance(compile_pattern(e.pattern), re2._Regexp) for e in EXTRACTORS)
    assert pattern_problem(r"(a+)+\1") is not None
    near_misses = "".join(
        f"{i} NVRM: Xid (PCI:" + "0" * 200 + " " + "a" * 300 + "Error" * 20 + "\n" for i in range(400)
    )
    reading = read_log(near_misses + "a" * 100_000)
    assert reading.lines_read == 401  # 400 lines and the 100 KB one
    # "NVRM: Xid" names the Xid family, never a code: the lines make no strong match.
    assert [h.confidence for h in reading.hits if h.confidence == "strong"] == []
    assert not any(re.fullmatch(r"Xid \d+", term) for h in reading.hits for term in h.matched_terms)


def test_an_infiniband_work_completion_is_not_an_inference_log():
    # NCCL's "Got completion ... with error 12" is an ibverbs work completion, not the
    # completions API; read as inference, it once put RoCE training cases behind others.
    line = "NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129"
    assert read_log(line).job_kind is None
    assert read_log('"POST /v1/completions HTTP/1.1" 200 OK').job_kind == "inference"


def test_an_infiniband_completion_error_code_finds_the_cases_quoting_it():
    line = "NCCL WARN NET/IB : Got completion from peer 10.0.0.3<52017> with error 12, opcode 0, len 0"
    quoting = ids_quoting("with error 12")
    hits = match_log(line)
    assert {h.case.id for h in hits[: len(quoting)]} == set(quoting)
    assert all("error 12" in h.matched_terms for h in hits[: len(quoting)])


# The same failure as NCCL 2.18 to 2.26 and NCCL 2.27 and later print it.
NEWER_IB_COMPLETIONS = [
    "NCCL WARN NET/IB : Got completion from peer 10.0.0.8<58213> with status=12 opcode=0 len=0"
    " vendor err 129 (Recv) localGid ::ffff:10.0.0.7 remoteGids::ffff:10.0.0.8 hca mlx5_0",
    "NCCL WARN NET/IB: Got completion from peer 10.0.0.8<58213> with status=IBV_WC_RETRY_EXC_ERR(12)"
    " opcode=IBV_WC_RECV(128) vendor_err=129 localGid ::ffff:10.0.0.7 remoteGids ::ffff:10.0.0.8 hca mlx5_0",
]
WATCHDOG = (
    "[rank3]:[E1201 10:32:14.123456 1234 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective"
    " operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000)"
    " ran for 1800083 milliseconds before timing out.\n"
    "[rank3]:[E1201 10:32:14.124000 1234 ProcessGroupNCCL.cpp:630] [Rank 3] Some NCCL operations have"
    " failed or timed out.\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED\n"
)


@pytest.mark.parametrize("line", NEWER_IB_COMPLETIONS)
def test_a_newer_nccls_completion_status_reads_as_the_error_the_cases_quote(line):
    # Read only as the two error codes' patterns (weighing 1 each), `status=12` put the two
    # cases of this failure 4th and 5th behind three cases of any hang's watchdog timeout
    # (a new user's walkthrough, with an InfiniBand rather than a RoCE log).
    assert failure_tokens(unique_lines(line))["error 12"].kind == "ib-completion"
    quoting = set(ids_quoting("with error 12"))
    assert len(quoting) == 2
    devices = "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.7<0>\n"
    hits = read_log(devices + line + "\n" + WATCHDOG).hits
    assert {h.case.id for h in hits[:2]} == quoting
    assert hits[0].confidence == "strong"
    only_the_ib_lines = read_log(line).hits
    assert {h.case.id for h in only_the_ib_lines[:2]} == quoting


def test_a_message_a_program_could_not_do_is_looked_up_as_a_phrase():
    # IL-0517 quotes the container's `Failed to initialize NVML: Unknown Error`; no error code
    # or exception names it, so only the message itself can find the case.
    log = "$ nvidia-smi\nFailed to initialize NVML: Unknown Error\n"
    hits = read_log(log).hits
    assert hits and hits[0].case.id == "IL-0517"
    assert "failed to initialize nvml" in hits[0].matched_terms  # ignore-case tokens are lower-cased


def test_the_message_after_fatal_or_error_is_looked_up_as_a_phrase():
    # IL-0526 quotes slurmd's `fatal: gres.conf duplicate records for gpu`; no code names it.
    log = "Feb 20 21:14:37 node1 slurmd[4182]: fatal: gres.conf duplicate records for gpu\n"
    hits = read_log(log).hits
    assert hits and hits[0].case.id == "IL-0526"
    assert "gres.conf duplicate records for gpu" in hits[0].matched_terms


def test_a_message_another_extractor_read_is_not_looked_up_twice():
    # `CUDA error: ...` is the CUDA error token (and its known phrase): the words after
    # `error:` are not a second, message token for the same text.
    line = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    tokens = failure_tokens(unique_lines(line))
    assert {token: evidence.kind for token, evidence in tokens.items()} == {
        "cuda error an illegal memory access was encountered": "cuda-error",
        "illegal memory access": "phrase",
    }
    # A message no other extractor reads is one.
    tokens = failure_tokens(unique_lines("slurmd[4182]: fatal: gres.conf duplicate records for gpu\n"))
    assert {token: evidence.kind for token, evidence in tokens.items()} == {
        "gres.conf duplicate records for gpu": "error-message"
    }


def test_many_error_messages_do_not_crowd_out_an_error_code():
    # Sixty distinct `ERROR:` lines, then the Xid line: the code is still looked up, and the
    # cases quoting it come first.
    noise = "".join(f"ERROR: upstream proxy rejected client{n} request\n" for n in range(60))
    log = noise + "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
    quoting = ids_quoting("Xid 79")
    hits = read_log(log).hits
    assert quoting and hits and hits[0].case.id in quoting, ([h.case.id for h in hits], quoting)
    assert "Xid 79" in hits[0].matched_terms


def test_a_debugging_variable_the_job_sets_is_looked_up_and_a_hint_naming_it_is_not():
    job = failure_tokens(
        unique_lines("+ export CUDA_LAUNCH_BLOCKING=1\n$ NCCL_DEBUG=INFO TORCH_USE_CUDA_DSA=1 python t.py\n")
    )
    hint = failure_tokens(
        unique_lines(
            "RuntimeError: CUDA error: an illegal memory access was encountered\n"
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
            "[rank3]: CUDA_LAUNCH_BLOCKING=1 may help\n"
        )
    )
    assert job["CUDA_LAUNCH_BLOCKING"].set_by_job is True
    assert job["TORCH_USE_CUDA_DSA"].set_by_job is True  # after another assignment
    assert job["CUDA_LAUNCH_BLOCKING"].kind == "setting"  # so it never makes a match strong
    assert hint["CUDA_LAUNCH_BLOCKING"].set_by_job is False
    # Set by the job, the variable is looked up: the case about NCCL hanging under blocking
    # launches (IL-0473) is found by it; the same words as a hint leave it out.
    log = "+ export CUDA_LAUNCH_BLOCKING=1\ntorchrun --nnodes=2 train.py\nNCCL INFO Init COMPLETE\n"

    def named(text: str) -> set[str]:
        return {term.upper() for hit in read_log(text).hits for term in hit.matched_terms}

    assert "CUDA_LAUNCH_BLOCKING" in named(log)
    hinted = "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\ntorchrun --nnodes=2 train.py\n"
    assert "CUDA_LAUNCH_BLOCKING" not in named(hinted)


def test_an_ngc_container_tag_is_not_read_as_the_frameworks_version():
    # `nvcr.io/nvidia/pytorch:24.03-py3` is the March 2024 container (PyTorch 2.3.0a0);
    # read as PyTorch 24.03 it would fall inside or outside a case's PyTorch range by chance.
    components = list(Term.objects.filter(facet=Facet.COMPONENT))
    lines = {
        "$ docker run --gpus all nvcr.io/nvidia/pytorch:24.03-py3 python train.py": [1],
        "packages: torch==2.5.1 vllm==0.7.3": [2],
        "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime": [3],
        # NVIDIA's other images carry the component's own version.
        "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04": [4],
        "image: nvcr.io/nvidia/gpu-operator:v23.9.1": [5],
    }
    found = {(name, version) for name, version in component_versions(lines, components)}
    assert ("PyTorch", "24.03") not in found
    expected = {("PyTorch", "2.5.1"), ("vLLM", "0.7.3"), ("PyTorch", "2.1.0"), ("CUDA", "12.1.0")}
    assert expected <= found
    assert any(version == "23.9.1" for _, version in found), found


def test_a_component_version_inside_a_case_range_is_evidence_for_that_case():
    # IL-0567's NCCL range lists 2.19.3 and 2.19.4 (and 2.17, fixed in 2.18); a local build
    # tag (`+cuda12.3`) is the same release.
    inside = read_log("NCCL version 2.19.3+cuda12.3\nNCCL INFO NVLS multicast support is available\n")
    named = {hit.case.id: hit.matched_terms for hit in inside.hits}
    assert "NCCL 2.19.3" in named["IL-0567"]
    outside = read_log("NCCL version 2.21.5+cuda12.4\nNCCL INFO NVLS multicast support is available\n")
    assert all("NCCL 2.21.5" not in hit.matched_terms for hit in outside.hits if hit.case.id == "IL-0567")
    # Evidence that the case may apply, not that the log shows its failure: never strong alone.
    assert all(hit.confidence != "strong" for hit in inside.hits)


@pytest.mark.parametrize(
    ("text", "read", "blank"),
    [
        ("NCCL watchdog timeout\nXid 79\n", 2, 0),  # a final newline ends the last line
        ("NCCL watchdog timeout\nXid 79", 2, 0),
        ("NCCL watchdog timeout\n\nXid 79\n", 3, 1),
        ("NCCL watchdog timeout\n\n", 2, 1),  # the second newline ends a blank line
        ("NCCL watchdog timeout\r\nXid 79\r\n", 2, 0),
    ],
)
def test_lines_are_counted_as_an_editor_counts_them(text, read, blank):
    reading = read_log(text)
    assert (reading.lines_read, reading.lines_blank) == (read, blank)
    assert reading.lines_repeated == 0
