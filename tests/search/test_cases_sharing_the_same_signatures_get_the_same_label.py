"""Two cases sharing the same specific signatures with a log get the same label.

A new user's InfiniBand training log (`NET/IB : Got completion from peer ... with
status=12 ... vendor err 129`, then `IBV_WC_RETRY_EXC_ERR`) listed IL-0450 "strong" and
IL-0485 "possible", though each carries both error codes and shares the same lines: the
label compared a hit's score with the best one's after the job-kind factor (IL-0450 is a
training case, 1.25; IL-0485's workload is not recorded, 1.0) and the semantic factor, which
only order cases of equal evidence. Now it compares what each case shares with the log,
lowered only for a case of a kind of job the log does not show (`log_confidence.shared_weight`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.log_confidence import shared_weight
from incidents.search.log_job_kind import KIND_MATCH, KIND_MISMATCH

pytestmark = pytest.mark.django_db

IB_LOG = (Path(__file__).parent / "logs" / "torchrun-ib-completion-status-12.log").read_text(encoding="utf-8")
BOTH_CODES = {"IBV_WC_RETRY_EXC_ERR", "NET/IB completion error"}


def test_the_two_cases_of_the_ib_completion_error_are_both_strong():
    reading = read_log(IB_LOG)
    assert reading.job_kind == "training"
    hits = {hit.case.id: hit for hit in reading.hits}
    assert [hit.case.id for hit in reading.hits[:2]] == ["IL-0450", "IL-0485"]
    for case_id in ("IL-0450", "IL-0485"):
        assert BOTH_CODES <= set(hits[case_id].matched_terms)
        assert hits[case_id].confidence == "strong"


def test_one_of_the_two_signatures_alone_is_not_strong():
    # The README's promise: a strong hit needs two specific signatures.
    line = "mlx5: node07: got completion with error: IBV_WC_RETRY_EXC_ERR\n"
    assert {hit.confidence for hit in read_log(line).hits} <= {"possible", "weak"}


def test_only_a_kind_of_job_the_log_does_not_show_lowers_what_a_case_shares():
    assert shared_weight(10.0, KIND_MATCH) == 10.0
    assert shared_weight(10.0, 1.0) == 10.0
    assert shared_weight(10.0, KIND_MISMATCH) == 10.0 * KIND_MISMATCH
