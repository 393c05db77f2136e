"""A lone `CUDA out of memory` line ranks the case of a GPU running out of memory above a
host running out of RAM (a new user's report, issue 17: the host case was second): the
phrase is read whole (`CUDA out of memory`, in 5 cases, not `out of memory`, in 16), so the
cases that only say a process ran out of memory do not share it. The ECC case that ended
in `CUDA error: out of memory` still ranks first (see eval/README.md, 2026-12-08)."""

from __future__ import annotations

import pytest

from incidents.search import read_log
from incidents.search.log_text import unique_lines
from incidents.search.log_tokens import failure_tokens

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


def test_the_gpu_memory_case_ranks_above_the_host_memory_case():
    hits = read_log(LINE).hits
    ranked = [hit.case.id for hit in hits]
    assert ranked[:2] == [ECC, GPU_OOM]
    assert ranked.index(HOST_OOM) == 4
    by_id = {hit.case.id: hit for hit in hits}
    assert "cuda out of memory" in by_id[GPU_OOM].matched_terms
    assert "cuda out of memory" not in by_id[HOST_OOM].matched_terms


def test_the_phrase_keeps_whose_memory_ran_out():
    assert "cuda out of memory" in failure_tokens(unique_lines(LINE))
    host = "[Wed Mar 12 14:39:51 2025] Out of memory: Killed process 611207 (python)"
    assert "out of memory" in failure_tokens(unique_lines(host))


def test_the_api_lists_it_the_same(client):
    matched = client.post("/api/match", LINE, content_type="text/plain").json()["results"]
    assert [hit["id"] for hit in matched[:2]] == [ECC, GPU_OOM]
