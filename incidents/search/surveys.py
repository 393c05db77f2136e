"""A strong search hit that is a survey matches several of the query's words.

A case listing more symptoms than `THRESHOLDS.survey_symptoms` is a survey or a chronicle of
many failures (a platform's census of its incidents, a cluster's failure statistics, a
run's logbook): it names most failure classes in passing, so a query of one or two of them
(`job failed`, `nccl timeout on 512 gpus`, a pasted `CUDA error: an illegal memory access`)
matches it as well as it matches the case of that failure, and the relevance model, which
reads words and ranks, made it the strong first hit (a new user's walkthrough, W5, W9, W11).
Log matching weighs a survey's symptoms the same way (`log_confidence`: no evidence unit).
A survey is strong when it matches at least `SURVEY_GROUPS` of the query's word groups
(`lemon node detection slurm`, `GPU memory faults main cause of unexpected restarts`): it is
found by what the query asks of it, not by a failure it lists; otherwise it is possible.
Read from the hits' cases (`hydration._hits`), which carry their symptom tags: no query.
"""

from __future__ import annotations

from .fusion import POSSIBLE, STRONG, Candidate
from .log_thresholds import THRESHOLDS
from .results import Confidence

# The word groups of the query a strong survey matches at least (its share times the groups).
SURVEY_GROUPS = 3


def survey_label(candidate: Candidate, symptoms: int, groups: int) -> Confidence:
    """The label of `candidate` (a case listing `symptoms` symptom tags) for a query of
    `groups` word groups: possible for a strong one matching fewer than `SURVEY_GROUPS` of
    them (`Candidate.share` x `groups`) that lists more than `THRESHOLDS.survey_symptoms`
    symptoms, its own label otherwise. Read when the hits are loaded (`hydration._hits`,
    whose cases carry their terms): no query; ranks and scores are unchanged, and both
    labels are matches, so the total and the facet counts are too."""
    if (
        candidate.confidence == STRONG
        and symptoms > THRESHOLDS.survey_symptoms
        and round(candidate.share * groups) < SURVEY_GROUPS
    ):
        return POSSIBLE
    return candidate.confidence
