"""A log hit's label is never surer than the label of the hit above it.

A new user's two-line JAX log (`DEADLINE_EXCEEDED: Barrier timed out`, then the coordinator
detecting missing heartbeats) listed IL-0574, the JAX multi-node start-up case found by the
log's rare words, first and "weak", and below it IL-0450 and IL-0485 "possible" for sharing
only the words "timed out". The order is the answer; a label saying a lower hit is surer
than the first one contradicts it (`log_confidence.head_labels`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.log_confidence import head_labels

pytestmark = pytest.mark.django_db

RANK = {"weak": 1, "possible": 2, "strong": 3}

JAX_LOG = (
    "2026-12-07 13:01:22.118 W external/xla/xla/pjrt/distributed/client.cc:169] Coordination service "
    "agent in error status: DEADLINE_EXCEEDED: Barrier timed out. Id: PjRT_Client_Connect. Barrier "
    "timed out after 300000ms.\n"
    "2026-12-07 13:01:22.119 F external/xla/xla/pjrt/distributed/client.cc:245] Terminating process "
    "because the coordinator detected missing heartbeats. This most likely indicates that another task "
    "died; see the other task logs for more details. Status: UNAVAILABLE: The following tasks are "
    "unhealthy (stopped sending heartbeats): /job:jax_worker/replica:0/task:17\n"
)

LOGS = sorted((Path(__file__).parent / "logs").glob("*.log")) + sorted(
    (Path(__file__).parents[2] / "eval" / "logs").glob("*.log")
)


def test_each_label_is_at_most_the_one_above():
    assert head_labels(["strong", "possible", "strong"]) == ["strong", "possible", "possible"]
    assert head_labels(["weak", "possible", "strong", "weak"]) == ["weak", "weak", "weak", "weak"]
    assert head_labels(["possible", "weak", "possible"]) == ["possible", "weak", "weak"]
    assert head_labels(["strong", "strong", "possible"]) == ["strong", "strong", "possible"]


def test_the_jax_barrier_log_lists_its_case_first_and_nothing_surer_below():
    hits = read_log(JAX_LOG).hits
    assert hits[0].case.id == "IL-0574"
    assert [h.confidence for h in hits] == ["weak"] * len(hits)


def test_no_log_lists_a_surer_hit_below_a_less_sure_one():
    assert len(LOGS) > 50
    for path in LOGS:
        labels = [RANK[h.confidence] for h in read_log(path.read_text(encoding="utf-8")).hits]
        assert labels == sorted(labels, reverse=True), path.name
