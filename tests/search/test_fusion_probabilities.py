"""Fusion scores every candidate at once with numpy; each probability is exactly the one
the relevance model gives that candidate alone (`probability(features(...))`), so ranking
and labels do not depend on how many candidates are scored together."""

from __future__ import annotations

import random

import numpy as np

from incidents.search.fusion import _probabilities, features, probability


def test_the_candidates_scored_together_get_each_its_own_probability():
    rng = random.Random(7)
    rows = []
    for _ in range(500):
        lexical = rng.choice([None, rng.randint(1, 1000)])
        semantic_rank = rng.choice([None, rng.randint(1, 20_000)])
        share = rng.choice([0.0, 1.0, rng.random()])
        semantic = rng.uniform(-0.2, 1.2)
        literal = rng.choice([0.0, rng.random()])
        rows.append((lexical, semantic_rank, share, semantic, literal))
    top = 1.1
    together = _probabilities(
        [
            np.array([r[0] or 0 for r in rows], dtype=np.float64),
            np.array([r[1] or 0 for r in rows], dtype=np.float64),
            np.array([r[2] for r in rows], dtype=np.float64),
            np.array([r[3] for r in rows], dtype=np.float64),
            np.array([r[4] for r in rows], dtype=np.float64),
        ],
        top,
    )
    alone = [probability(features(r[0], r[1], r[2], r[3], top, r[4])) for r in rows]
    assert together == alone
    assert min(alone) < 0.15 < 0.5 < max(alone)  # the sample spans the three labels
