"""The first hit's similar cases that share only a component's name with the log (context)
are lifted like its other similar cases (`log_scores.add_context_neighbours`): another
report of the failure the log shows may share nothing else with it. Listed, showing the
component's line, and labelled weak (no signature)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import log_scores, logmatch, read_log

pytestmark = pytest.mark.django_db

# A flex_attention run on the FLASH backend with NaN gradients: IL-0490 quotes its settings;
# IL-0489 (FlashAttention's CuTe backward corrupting dQ and dK) shares only the component.
LOG = (Path(__file__).parent / "logs" / "flex-attention-nan-grads.log").read_text(encoding="utf-8")


def test_a_similar_case_sharing_only_the_component_comes_after_the_first_hit():
    hits = read_log(LOG).hits
    assert [hit.case.id for hit in hits[:2]] == ["IL-0490", "IL-0489"]
    neighbour = hits[1]
    assert (neighbour.like, neighbour.confidence, neighbour.signature) == ("IL-0490", "weak", False)
    assert neighbour.matched_terms == ("FlashAttention",)
    assert [line.line for line in neighbour.lines] == [
        '$ pip list | grep -iE "^(torch|flash-attn-4) "',
        "flash-attn-4          4.0.0b16",
    ]


def test_without_it_the_case_was_no_hit(monkeypatch):
    monkeypatch.setattr(logmatch, "add_context_neighbours", lambda *args: None)
    assert "IL-0489" not in [hit.case.id for hit in read_log(LOG).hits]


def test_a_case_sharing_nothing_is_not_added():
    scores, weights = {"A": 10.0}, {"A": 10.0}
    log_scores.add_context_neighbours(scores, weights, {"B": 0.5, "C": 0.4}, {"C": 1.2})
    assert scores == {"A": 10.0, "C": 0.6} and weights == {"A": 10.0, "C": 0.6}
