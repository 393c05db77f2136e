"""A lone `CUDA out of memory` line finds the case of a GPU running out of memory first, not
a GPU's ECC fault that ended in `CUDA error: out of memory` nor a host running out of RAM
(a new user's report, issue 17): the phrase is read whole (`CUDA out of memory`, not `out of
memory`), and a case carrying error codes of the log's codes' vendor that the log does not
show ranks lower (`log_scores.codes_factor`)."""

from __future__ import annotations

import pytest

from incidents.search import read_log
from incidents.search.log_scores import CODES_FLOOR, codes_factor
from incidents.search.log_tokens import failure_tokens
from incidents.search.log_text import unique_lines

pytestmark = pytest.mark.django_db

LINE = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total"
    " capacity of 79.15 GiB of which 1.2 GiB is free. Including non-PyTorch memory, this process"
    " has 77.9 GiB memory in use. Of the allocated memory 75.3 GiB is allocated by PyTorch, and"
    " 1.8 GiB is reserved by PyTorch but unallocated."
)
GPU_OOM = "IL-0452"  # FSDP optimizer-state loading ran resumed runs out of GPU memory
ECC = "IL-0465"  # an uncorrectable ECC error, then `CUDA error: out of memory` on the same node
HOST_OOM = "IL-0570"  # a host-memory leak ran a node out of CPU memory


def test_the_gpu_memory_case_comes_first():
    ranked = [hit.case.id for hit in read_log(LINE).hits]
    assert ranked[0] == GPU_OOM
    assert ranked.index(GPU_OOM) < ranked.index(ECC)
    assert HOST_OOM not in ranked[:3]


def test_the_phrase_keeps_whose_memory_ran_out():
    assert "cuda out of memory" in failure_tokens(unique_lines(LINE))
    host = "[Wed Mar 12 14:39:51 2025] Out of memory: Killed process 611207 (python)"
    assert "out of memory" in failure_tokens(unique_lines(host))


def test_codes_of_the_logs_vendor_it_does_not_show_lower_a_case():
    vendor = {1: "CUDA runtime", 2: "CUDA runtime", 3: "Slurm", 4: "NVIDIA driver"}
    # The ECC case: two CUDA runtime codes, the log shows one.
    assert codes_factor(frozenset({1, 2}), frozenset({1}), vendor) == 0.5
    # The fleet case's Slurm job state beside an Xid the log shows: another program's code.
    assert codes_factor(frozenset({4, 3}), frozenset({4}), vendor) == 1.0
    # Every code shown, no code shown, or a case with no code: no change.
    assert codes_factor(frozenset({1}), frozenset({1}), vendor) == 1.0
    assert codes_factor(frozenset({1, 2}), frozenset(), vendor) == 1.0
    assert codes_factor(frozenset(), frozenset({1}), vendor) == 1.0
    # None of the vendor's codes shown: the floor.
    assert codes_factor(frozenset({2}), frozenset({1}), vendor) == CODES_FLOOR


def test_the_api_and_triage_put_it_first(client, mcp):
    matched = client.post("/api/match", LINE, content_type="text/plain").json()["results"]
    assert matched[0]["id"] == GPU_OOM
    tool = mcp.ok("triage", text=LINE)
    assert tool["cases"][0]["id"] == GPU_OOM
