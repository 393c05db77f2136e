"""Search: the case most like a strong first hit, listed first among the partial matches.

A query often has more than one answer: other reports of the same failure, told in other
words (the AMD IOMMU case beside the PLX ACS one, both "peer-to-peer copies corrupt or
crash"). They share little of the query but much of the case it matches best, so the
lexical and semantic rankings leave them out of the first five or out of the candidates
altogether. The similar-case lists (`similarity.py`, stored per case) already say which
case is most like each: the first hit's nearest neighbour, when the lists call it at least
"similar" (`similarity.SIMILAR`, read from the tuning similarity judgements), follows the
matches, ahead of the other partial matches. It stays a partial match: nothing says it
answers the query, only that it is like the case that does.

Measured with the tuning and validation queries (recall@5; MRR@10 cannot move, the matches
keep their order): tuning 0.957 -> 0.960, validation 0.937 -> 0.950, second validation 0.935
-> 0.945. More neighbours (the first two or three at least "similar") lowered the tuning
queries' recall@5 to 0.944-0.947 by pushing out partial matches that answered; only after a
first hit the ranking is confident of (`CONFIDENT_FIRST`): the neighbour of a wrong first
hit pushed the answer down.

The same read gives the first hit's whole stored list (`first_hit_neighbours`), whose
similar-case scores also raise the partial matches among them a little
(`fusion.by_likeness`, `fusion.NEIGHBOUR_WEIGHT`): the list knows what the first hit's
mean embedding alone does not (shared terms and words).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from incidents.models import CaseQuerySet

from .fusion import STRONG, WEAK, Candidate
from .models import CaseNeighbour
from .similarity import SIMILAR

# The first hit's probability (`Candidate.fused`) from which its nearest neighbour follows
# the matches. On the tuning queries every first hit it helped was at 0.96 or more and every
# one it hurt (a wrong first hit's neighbour pushing the answer down) at 0.62 to 0.85.
CONFIDENT_FIRST = 0.9


def first_hit_neighbours(ranked: list[Candidate], allowed: CaseQuerySet) -> dict[str, float]:
    """The stored similar cases of the first of `ranked` among `allowed` (the plan's cases:
    published, filtered), case id -> similar-case score (0..1), nearest first, when that
    first is strong with p at least `CONFIDENT_FIRST`; empty otherwise, and when it has no
    stored list (pending after a bulk import). One query when confident (at most
    `similarity.NEIGHBOURS` rows), none otherwise."""
    if not ranked or ranked[0].confidence != STRONG or ranked[0].fused < CONFIDENT_FIRST:
        return {}
    rows = (
        CaseNeighbour.objects.filter(case_id=ranked[0].case_id, neighbour__in=allowed.values("id"))
        .order_by("rank")
        .values_list("neighbour_id", "score")
    )
    return dict(rows)


def nearest_to_first(ranked: list[Candidate], neighbours: Mapping[str, float]) -> list[Candidate]:
    """`ranked` (matches first, then partial matches) with the first match's nearest
    neighbour (`neighbours`: `first_hit_neighbours`, nearest first) moved or added first
    among the partial matches, marked `like` the first (`Candidate.like`), when its
    similar-case score is at least `SIMILAR` and it is not a match already. Unchanged when
    `neighbours` is empty (a first hit not confident enough, or without a stored list) or
    none of them is similar enough. No query.

    A neighbour that was no candidate is added with `fused` 0.0: the query's words and
    meaning ranked it below every candidate, so no probability of its own was computed,
    and its place comes from its likeness to the first hit, which `like` says (every door
    gives it: `SearchHit.like`). Its similarity is not put in its place: `fused` is the
    score every door shows as the probability that the case answers the query, and a
    similarity there (0.34 at least) would read as a possible match (`fusion.POSSIBLE_P`)
    labelled weak, above the partial matches that share the query's words."""
    if not ranked or not neighbours:
        return ranked
    first = ranked[0].case_id
    nearest = next((case_id for case_id, score in neighbours.items() if score >= SIMILAR), None)
    matches = [c for c in ranked if c.is_match]
    if nearest is None or any(c.case_id == nearest for c in matches):
        return ranked
    weak = ranked[len(matches) :]
    present = next((c for c in weak if c.case_id == nearest), None)
    moved = (
        replace(present, like=first)
        if present is not None
        else Candidate(nearest, 0.0, share=0.0, semantic=None, lexical_rank=None, confidence=WEAK, like=first)
    )
    return [*matches, moved, *(c for c in weak if c.case_id != nearest)]
