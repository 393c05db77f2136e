"""A failure is found by the names engineers see for it (fixtures/vocab.json): PyTorch's
OOM exception (`torch.cuda.OutOfMemoryError`, since 2.5 `torch.OutOfMemoryError`) and exit
code 137 name the Out of memory symptom, as its description says; `segfault` and `SIGSEGV`
name a segmentation fault. Typed into search they widen to the term's spellings, pasted
into `explain_error` PyTorch's exception is the CUDA allocation error it wraps. A generic
word (`exit`, `code`, `segment`) names nothing."""

from __future__ import annotations

import pytest

from incidents.search import read_log, search_cases
from tests.api.fixture_facts import has_symptom, ids_where
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

OUT_OF_MEMORY = set(ids_where(has_symptom("Out of memory")))


def found(query: str) -> set[str]:
    return {hit.case.id for hit in search_cases(query=query, limit=100).hits}


@pytest.mark.parametrize(
    "query", ["OutOfMemoryError", "torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError", "exit code 137"]
)
def test_pytorchs_oom_exception_and_exit_code_137_find_the_out_of_memory_cases(query):
    # Before: no match for any of them. Now what the symptom's synonym `OOM` finds: the
    # symptom's spellings, in most of the cases tagged with it.
    assert search_cases(query=query).terms == ["Out of memory"]
    assert found(query) == found("OOM")
    assert len(found(query) & OUT_OF_MEMORY) >= 10


def test_exit_code_137_finds_the_case_whose_pods_were_oom_killed():
    # IL-0527: download init containers "OOMKilled (exit 137)".
    assert "IL-0527" in found("exit code 137")


@pytest.mark.parametrize("query", ["exit code", "code 137", "exit 1", "segment"])
def test_a_generic_word_names_no_failure(query):
    assert search_cases(query=query).terms == []


def test_segfault_sigsegv_and_segmentation_fault_search_the_same_thing():
    # Before: `segfault` and `SIGSEGV` found nothing, `Segmentation fault` two cases about code
    # segments (IL-0441) and a network segment (IL-0572). No case reports a segfault.
    for query in ("segfault", "SIGSEGV", "Segmentation fault"):
        assert search_cases(query=query).terms == ["Segmentation fault"], query
    assert found("segfault") == found("SIGSEGV") == found("Segmentation fault") == set()


@pytest.mark.parametrize("text", ["torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"])
def test_explain_error_reads_pytorchs_oom_exception_as_the_cuda_allocation_error(text):
    # Before: no code.
    [code] = InMemoryMcp().ok("explain_error", text=text)["codes"]
    assert (code["slug"], code["name"]) == ("cuda-error-memory-allocation", "cudaErrorMemoryAllocation")


def test_a_log_naming_the_exception_alone_shows_the_code():
    reading = read_log(
        "[rank3] caught torch.cuda.OutOfMemoryError at step 1200, retrying with micro-batch 2\n"
    )
    assert [found.term.name for found in reading.error_codes] == ["cudaErrorMemoryAllocation"]
