"""A log's best hit lifts the candidates most like it (its stored similar cases): the other
reports of the same failure, told in their own words, follow the report whose tokens the log
shows, and never pass it."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.log_scores import LIKE_FIRST_CAP, like_the_first

pytestmark = pytest.mark.django_db

LOGS = Path(__file__).resolve().parents[2] / "eval" / "logs"


def test_a_similar_case_gains_the_first_hits_score_times_how_alike_they_are():
    scores = {"IL-1": 10.0, "IL-2": 2.0, "IL-3": 8.0}
    # IL-3 would pass the first hit: it stops just below it. IL-4 is no candidate of the log
    # (it shares nothing with it) and stays out.
    lifted = like_the_first(scores, "IL-1", {"IL-1": 1.0, "IL-2": 0.5, "IL-3": 0.4, "IL-4": 0.9})
    assert lifted == {"IL-2": 7.0, "IL-3": LIKE_FIRST_CAP * 10.0}


def test_a_first_hit_without_a_stored_list_changes_nothing():
    assert like_the_first({"IL-1": 10.0, "IL-2": 2.0}, "IL-1", {}) == {}


def test_the_gb200_nvlink_log_lists_the_silent_nvlink_case_after_the_one_quoting_its_xid():
    hits = read_log((LOGS / "t2-xid149-nvlink-gb200.log").read_text(encoding="utf-8")).hits
    ids = [hit.case.id for hit in hits]
    # IL-0498 quotes the log's Xid 149 and NETIR_LINK_DOWN; IL-0499, the same GB200 NVLink
    # failure whose error counters never moved, shares only a CUDA error and NVLink with the
    # log (it was 16th), and is IL-0498's most similar case.
    assert ids[0] == "IL-0498"
    assert "IL-0499" in ids[1:5]
    assert hits[0].confidence == "strong"
    second = hits[ids.index("IL-0499")]
    assert second.score < hits[0].score
    assert second.matched_terms  # it still shares evidence with the log
