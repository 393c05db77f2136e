"""Hybrid ranking: the lexical ranking fused with the semantic one, a match floor, confidence.

Each candidate (a lexical match, or a case whose semantic score reaches
`SEMANTIC_CANDIDATE`) gets a calibrated probability of answering the query from a small
logistic model over reciprocal-rank terms of both rankings, `1 / (RRF_K + rank)` (ranks,
not raw scores, so bm25 / ts_rank and cosine need no common scale), and two signals that
mean the same on both backends: the share of the query's word groups its text matches
(lexical coverage) and its semantic score (query against its best passage,
`semantic.Vectors`), absolute and relative to the best case's.

Cases are ranked by that probability, and it gives the confidence label:
strong (p >= STRONG_P, for a query that says which failure: `kinds.names_only_a_kind`;
`ranking.rank` also asks a strong case holding few of a pasted line's words to hold its
failure signature, `signatures.holding_a_signature`), possible (p >= POSSIBLE_P, or a case
whose text has every word of the query, each as typed or as a synonym), weak. Strong and possible hits are the
*matches* (the total and the facet counts count them); weak ones come after them as
partial matches. When the first hit is a match, the partial matches are ordered by their
probability raised for the cases most like that first hit (`by_likeness`): a query with
several answers finds the others among the cases like its best one (tuning queries: 43
of the 53 other relevant cases of a query whose first hit was relevant were among that
hit's 10 most similar cases). Weights and thresholds were fitted on the tuning set
(eval/queries.json, `eval/calibrate.py`), never on the held-out set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np

from .backends import RankedRow
from .results import Confidence
from .semantic import CaseScores

RRF_K = 2
# A case with no lexical match is a candidate only when its semantic score reaches this.
SEMANTIC_CANDIDATE = 0.3

# The relevance model: p = sigmoid(WEIGHTS . features + BIAS), features as in `features`.
# Fitted by logistic regression on the tuning set (`python eval/calibrate.py`, which
# prints these lines); leave-one-query-out MRR@10 there 0.970, against 0.968 lexical only.
FEATURES = (
    "lexical_rrf",
    "semantic_rrf",
    "share",
    "semantic",
    "semantic_gap",
    "lexical",
    "share_squared",
    "literal_share",
)
WEIGHTS = (18.09, 4.683, 1.205, 3.434, 4.543, 0.08399, 2.825, -0.2508)
BIAS = -9.77
# Labels on p: the share of tuning-set hits at or above each that were relevant is
# printed by eval/calibrate.py (possible about 0.7). The model was fitted on queries that
# each have an answer, so p is too high for a query no case answers: at 0.5, 14 of 42
# tuning queries no case answers (eval/noanswer.json) had a strong first hit; at 0.7, 8
# (validation: 15 -> 8 of 41), while strong first hits of the answered tuning queries went
# 138 relevant / 11 not -> 135 / 8 (validation 187 / 1 -> 186 / 1). Ranks do not move.
STRONG_P = 0.7
POSSIBLE_P = 0.15

# Partial matches: the log-odds of p plus LIKENESS_WEIGHT times the case's semantic score
# against the first hit (`semantic.Vectors.case_vector`; about 0.3..1.2) order them; the
# LIKENESS_DEPTH most probable are reordered, the rest keep their order after them.
# The weight is what the order within one query needs (`eval/calibrate.py --likeness`, a
# per-query softmax over its partial matches), read on the tuning queries the relevance
# model was not fitted on: on the 74 it was fitted on, p tells their relevant cases apart
# better than it will on a new query (weight 8.3 SQLite / 6.6 PostgreSQL there, 31.7 / 30.0
# on the other 80, 39 on the validation queries; 14, the first choice, was a logistic model
# pooling the partial matches of all 154). Tuning recall@5 is best from 38 to 41 on both
# backends (0.957 / 0.957, against 0.949 / 0.950 at 14 and 0.954 / 0.947 at 30). The held-out
# set's recall@5 fell with it (0.962 -> 0.951); the second validation set, written after
# (eval/validation2/), keeps 40: recall@5 0.932 against 0.918 at 14 (SQLite).
LIKENESS_WEIGHT = 40.0
LIKENESS_DEPTH = 100
# After a confident first hit (`nearest_to_first.first_hit_neighbours`), a partial match in
# that hit's stored similar-case list adds NEIGHBOUR_WEIGHT times its similar-case score
# (about 0.2..0.6, so at most about 5, against 40 x a likeness of 0.5..1.1): the list reads
# what the mean embedding misses (shared terms and words), and it breaks near-ties among the
# cases like the first hit. Other reports of the failure the first hit tells were often just
# below the first five: of the relevant cases outside them, 24 of 25 on the validation set
# were in the first hit's stored list (23 after a confident first hit), 15 of 19 on the
# second (14), but 6 of 15 on the tuning set (2), where 5 are one fleet survey (IL-0631,
# relevant to 13 tuning queries) and 4 are matches below the fifth. Measured (recall@5
# SQLite / PostgreSQL; MRR@10 and labels unchanged): tuning 0.964 -> 0.967 / 0.960 -> 0.964,
# validation 0.948 -> 0.959 / 0.947 -> 0.959, second validation 0.945 -> 0.949 / 0.945 ->
# 0.947. Every weight from 4 to 13 keeps both validation sets at or above their figures
# without it on both backends, but the tuning gain holds only from 7 to 9 on SQLite (4 to 13
# on PostgreSQL): one query on each backend (a different one).
NEIGHBOUR_WEIGHT = 8.0

STRONG: Final = "strong"
POSSIBLE: Final = "possible"
WEAK: Final = "weak"


@dataclass(frozen=True)
class Candidate:
    case_id: str
    fused: float  # p, the calibrated probability that the case answers the query
    share: float  # share of the query's word groups matched; 0 without a lexical match
    semantic: float | None  # None when semantic retrieval is off
    lexical_rank: int | None
    confidence: Confidence
    # The first hit's id when listed as the case most like it (`nearest_to_first`).
    like: str | None = None

    @property
    def is_match(self) -> bool:
        return self.confidence != WEAK


def label(p: float, *, strong: bool = True) -> Confidence:
    """strong / possible / weak for a calibrated probability `p`; possible at most when not
    `strong` (a query naming only a kind of failure, `kinds.names_only_a_kind`)."""
    if p >= STRONG_P and strong:
        return STRONG
    return POSSIBLE if p >= POSSIBLE_P else WEAK


def features(
    lexical_rank: int | None,
    semantic_rank: int | None,
    share: float,
    semantic: float,
    top_semantic: float,
    literal_share: float = 0.0,
) -> list[float]:
    """The relevance model's inputs for one case (names in `FEATURES`)."""
    return [
        1.0 / (RRF_K + lexical_rank) if lexical_rank else 0.0,
        1.0 / (RRF_K + semantic_rank) if semantic_rank else 0.0,
        share,
        semantic,
        semantic - top_semantic,
        1.0 if lexical_rank else 0.0,
        share * share,
        literal_share,
    ]


def _probabilities(columns: list[np.ndarray], top_semantic: float) -> list[float]:
    """`probability(features(...))` of every candidate at once. `columns`: lexical rank,
    semantic rank (0 for none), share, semantic score, literal share. The same floating-point
    operations in the same order as `features` and `probability`, so the same values."""
    lexical_rank, semantic_rank, share, semantic, literal_share = columns
    has_lexical = lexical_rank > 0
    values = [
        np.where(has_lexical, 1.0 / (RRF_K + lexical_rank), 0.0),
        np.where(semantic_rank > 0, 1.0 / (RRF_K + semantic_rank), 0.0),
        share,
        semantic,
        semantic - top_semantic,
        np.where(has_lexical, 1.0, 0.0),
        share * share,
        literal_share,
    ]
    total = np.zeros(len(share), dtype=np.float64)
    for weight, column in zip(WEIGHTS, values, strict=True):
        total = total + weight * column
    return [1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, BIAS + z)))) for z in total.tolist()]


def probability(values: list[float]) -> float:
    z = BIAS + sum(w * x for w, x in zip(WEIGHTS, values, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def fuse(
    lexical: list[RankedRow], semantic: Mapping[str, float] | None, *, strong: bool = True
) -> list[Candidate]:
    """Candidates best first: matches (strong, possible) by calibrated probability, then
    weak ones. `strong` False: none is strong (a query naming only a kind of failure).

    `lexical` is the lexical ranking (best first); `semantic` maps every allowed case to
    its semantic score (None when semantic retrieval is off: the semantic features are 0;
    a `semantic.CaseScores` is read through numpy, any other mapping case by case).
    """
    lexical_rank = {row.case_id: rank for rank, row in enumerate(lexical, start=1)}
    share = {row.case_id: row.share for row in lexical}
    literal = {row.case_id: row.literal_share for row in lexical}
    scores = _SemanticScores(semantic or {})
    # The order of the semantic candidates does not matter: the candidates are sorted by a
    # total order below (sorting them here by score in Python took tens of milliseconds
    # when thousands of cases pass the threshold at 100,000 cases).
    above = [c for c in scores.at_least(SEMANTIC_CANDIDATE) if c not in lexical_rank]
    ids = list(lexical_rank) + above
    values, scored, semantic_rank = scores.of(ids)
    probabilities = _probabilities(
        [
            np.array([lexical_rank.get(c, 0) for c in ids], dtype=np.float64),
            semantic_rank.astype(np.float64),
            np.array([share.get(c, 0.0) for c in ids], dtype=np.float64),
            values,
            np.array([literal.get(c, 0.0) for c in ids], dtype=np.float64),
        ],
        scores.top,
    )
    candidates = []
    for case_id, sem, has, p in zip(ids, values.tolist(), scored.tolist(), probabilities, strict=True):
        confidence = label(p, strong=strong)
        if confidence == WEAK and case_id in lexical_rank and share[case_id] >= 1.0:
            confidence = POSSIBLE  # it has every word of the query (or a synonym): a match
        candidates.append(
            Candidate(
                case_id=case_id,
                fused=p,
                share=share.get(case_id, 0.0),
                semantic=sem if has else None,
                lexical_rank=lexical_rank.get(case_id),
                confidence=confidence,
            )
        )
    candidates.sort(key=lambda c: (not c.is_match, -c.fused, c.lexical_rank or 10**9, c.case_id))
    return candidates


class _SemanticScores:
    """The semantic scores of the allowed cases (N) as numpy arrays: each candidate's score
    and its rank in the semantic ranking (score descending, then case id; 1 first), without
    a Python step per allowed case. The scores are sorted once by numpy; a tie (two cases
    of the same score) is settled among the few cases of that score, where reading every
    score in Python for each tied candidate took about 25 ms a tie at 100,000 cases."""

    def __init__(self, semantic: Mapping[str, float]):
        if isinstance(semantic, CaseScores):
            self.ids, self.position, self.array = semantic.ids, semantic.position, semantic.array
        else:
            self.ids = list(semantic)
            self.position = {case_id: i for i, case_id in enumerate(self.ids)}
            self.array = np.fromiter(semantic.values(), dtype=np.float64, count=len(self.ids))
        self.ascending = np.sort(self.array)
        self.top = float(self.ascending[-1]) if len(self.ascending) else 0.0

    def at_least(self, threshold: float) -> list[str]:
        """The ids of the cases scoring at least `threshold`, in no particular order."""
        return [self.ids[i] for i in np.flatnonzero(self.array >= threshold).tolist()]

    def of(self, case_ids: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For `case_ids`: their scores (float64, 0 for a case without one), whether they
        have one, and their ranks (0 for a case without a score)."""
        at = np.fromiter((self.position.get(c, -1) for c in case_ids), dtype=np.int64, count=len(case_ids))
        scored = at >= 0
        values = np.zeros(len(case_ids), dtype=np.float64)
        values[scored] = self.array[at[scored]]
        ranks = np.zeros(len(case_ids), dtype=np.int64)
        found = values[scored]
        after = np.searchsorted(self.ascending, found, side="right")
        equal = after - np.searchsorted(self.ascending, found, side="left")
        higher = len(self.ascending) - after
        tied = np.flatnonzero(equal > 1)
        if len(tied):  # rare: the lower case id ranks first among the cases of one score
            names = [c for c, s in zip(case_ids, scored.tolist(), strict=True) if s]
            same: dict[float, list[str]] = {}
            for i in np.flatnonzero(np.isin(self.array, found[tied])).tolist():
                same.setdefault(float(self.array[i]), []).append(self.ids[i])
            for j in tied.tolist():
                higher[j] += sum(1 for other in same[float(found[j])] if other < names[j])
        ranks[scored] = higher + 1
        return values, scored, ranks


def by_likeness(
    candidates: list[Candidate],
    likeness: Mapping[str, float],
    neighbours: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """`candidates` (as `fuse` orders them) with the first `LIKENESS_DEPTH` partial matches
    ordered by log-odds of p + `LIKENESS_WEIGHT` * likeness (`likeness`: case id -> semantic
    score against the first hit; a case without one counts 0) + `NEIGHBOUR_WEIGHT` * its
    similar-case score with the first hit (`neighbours`: the first hit's stored list, case
    id -> score, given after a confident first hit; a case not in it counts 0), then lexical
    rank and id, when the first candidate is a match (unchanged otherwise: likeness to a
    weak first hit lowered the tuning queries' recall@5). Matches, labels and scores are
    unchanged."""
    if not candidates or not candidates[0].is_match:
        return candidates
    matches = [c for c in candidates if c.is_match]  # `fuse` lists them first
    weak = candidates[len(matches) :]
    if not weak:
        return candidates
    near = neighbours or {}
    reordered = sorted(
        weak[:LIKENESS_DEPTH],
        key=lambda c: (
            -(
                log_odds(c.fused)
                + LIKENESS_WEIGHT * likeness.get(c.case_id, 0.0)
                + NEIGHBOUR_WEIGHT * near.get(c.case_id, 0.0)
            ),
            c.lexical_rank or 10**9,
            c.case_id,
        ),
    )
    return [*matches, *reordered, *weak[LIKENESS_DEPTH:]]


def log_odds(p: float) -> float:
    """log(p / (1 - p)) of a probability (p kept off 0 and 1)."""
    p = min(max(p, 1e-300), 1.0 - 1e-16)
    return math.log(p) - math.log1p(-p)
