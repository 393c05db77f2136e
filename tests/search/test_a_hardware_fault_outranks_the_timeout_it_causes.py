"""A log that shows a GPU's hardware fault (an Xid: `GPU has fallen off the bus`) and then
the NCCL watchdog timeout it causes (the other ranks wait on the lost GPU's collective until
the watchdog fires) ranks the cases sharing the fault first (`log_scores.ROOT_FACTOR`): the
fault is the root, the timeout what any lost rank ends in. Without it, four cases of
software hangs sharing only the watchdog's lines (and the words of those long lines) came
before both cases quoting Xid 79."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import log_scores, read_log

pytestmark = pytest.mark.django_db

LOG = (Path(__file__).parent / "logs" / "torchrun-xid79-then-nccl-watchdog.log").read_text(encoding="utf-8")
# IL-0444: Meta's research clusters, where Xid 79 (with PCIe errors) failed training jobs and
# "a NCCL timeout names the victim, not the culprit"; IL-0523: a GPU lost from the bus
# (Xid 79) that failed a Kubernetes device plugin's allocations.
XID79_CASES = ["IL-0444", "IL-0523"]
# Hangs whose watchdog timeout is the only failure they share with the log.
WATCHDOG_HANGS = {"IL-0610", "IL-0615", "IL-0493"}


def ids(text: str) -> list[str]:
    return [hit.case.id for hit in read_log(text, limit=20).hits]


def test_the_cases_of_the_fault_come_before_those_of_its_timeout():
    ranked = ids(LOG)
    assert ranked[:2] == XID79_CASES
    assert WATCHDOG_HANGS <= set(ranked)  # still listed, after them


def test_without_the_root_factor_the_timeout_cases_came_first(monkeypatch):
    monkeypatch.setattr(log_scores, "ROOT_FACTOR", 1.0)
    ranked = ids(LOG)
    assert set(ranked[:3]) == WATCHDOG_HANGS
    assert ranked.index("IL-0444") == 4 and ranked.index("IL-0523") == 5


def test_the_fault_alone_is_ranked_as_before(monkeypatch):
    # The driver's lines alone: both cases share the Xid, so the factor keeps their order
    # (IL-0523 quotes `fallen off the bus` too).
    fault = "\n".join(line for line in LOG.splitlines() if "NVRM" in line)
    before = ids(fault)[:2]
    monkeypatch.setattr(log_scores, "ROOT_FACTOR", 1.0)
    assert ids(fault)[:2] == before == ["IL-0523", "IL-0444"]
