"""Error tokens, identifiers and version numbers find the cases that quote them."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from tests.conftest import ids_quoting
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def top(query: str) -> str | None:
    hits = search_cases(query=query, limit=3).hits
    return hits[0].case.id if hits else None


@pytest.mark.parametrize(
    ("query", "case_id"),
    [
        ("Xid 79", "IL-0444"),
        ("NCCL_IB_GID_INDEX", "IL-0450"),
        ("NCCL_WORK_FIFO_DEPTH", "IL-0464"),
        ("CUDA_LAUNCH_BLOCKING", "IL-0428"),
        ("ncclAllReduce", "IL-0464"),
        ("c10::CUDAError", "IL-0431"),
        ("2.22.3", "IL-0464"),  # the NCCL version pinned as the fix
        ("0.2.7", "IL-0463"),  # the vLLM version that hung
        ("uncorrectable ECC", "IL-0465"),
        ("optim_state_dict_to_load", "IL-0452"),
    ],
)
def test_token_finds_the_case_quoting_it(query, case_id):
    # Several cases may quote the same code (Xid 79 is in IL-0444 and IL-0523): the first hit
    # is one of the cases quoting it.
    quoting = ids_quoting(query)
    assert case_id in quoting
    hits = [h.case.id for h in search_cases(query=query, limit=10).hits]
    assert hits[0] in quoting
    # Cases that hold the words apart ("uncorrectable" here, "ECC" there) may come between
    # the quoting ones; most of the first five quote it, and the named case is in the ten.
    assert sum(hit in quoting for hit in hits[:5]) >= min(3, len(quoting)), (hits, quoting)
    assert case_id in hits


def test_cuda_error_names_and_env_variables_match_exactly(import_synthetic):
    import_synthetic(
        synthetic_case(
            1,
            title="Synthetic: cudaErrorIllegalAddress after NCCL_IB_TIMEOUT change",
            summary="Kernels failed with cudaErrorIllegalAddress once NCCL_IB_TIMEOUT was 22.",
        )
    )
    assert top("cudaErrorIllegalAddress") == "IL-900001"
    # IL-0442 (NIC flaps, the IB timeout raised) quotes NCCL_IB_TIMEOUT too: the cases quoting
    # it come first, in either order, before any case that does not.
    quoting = ids_quoting("NCCL_IB_TIMEOUT")
    assert "IL-0442" in quoting
    hits = [h.case.id for h in search_cases(query="NCCL_IB_TIMEOUT", limit=10).hits]
    assert set(hits[: len(quoting) + 1]) == {"IL-900001", *quoting}, (hits, quoting)


def test_a_version_number_does_not_match_its_digits_apart():
    ids = {h.case.id for h in search_cases(query='"2.22.3"', limit=50).hits}
    # Only the cases that write the version (IL-0464 and IL-0604 do), never those that hold
    # 2.22 and a 3 apart.
    assert "IL-0464" in ids
    assert ids == set(ids_quoting("2.22.3"))


def test_ecc_matches_upper_case_token():
    ids = {h.case.id for h in search_cases(query="ECC", limit=50).hits}
    assert {"IL-0429", "IL-0465", "IL-0601"} <= ids
