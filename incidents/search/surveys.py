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
"""

from __future__ import annotations

import dataclasses

from django.db.models import Count, Q

from incidents.id_lists import ids_subquery
from incidents.models import Case, Facet

from .fusion import POSSIBLE, STRONG, Candidate
from .log_thresholds import THRESHOLDS

# The word groups of the query a strong survey matches at least (its share times the groups).
SURVEY_GROUPS = 3


def surveys_found_by_words(candidates: list[Candidate], groups: int) -> list[Candidate]:
    """`candidates` with each strong one matching fewer than `SURVEY_GROUPS` of the query's
    `groups` word groups (`Candidate.share` x `groups`) that lists more than
    `THRESHOLDS.survey_symptoms` symptoms labelled possible (same order, same scores).
    One query when there is such a strong candidate, none otherwise."""
    doubtful = [
        c.case_id for c in candidates if c.confidence == STRONG and round(c.share * groups) < SURVEY_GROUPS
    ]
    if not doubtful:
        return candidates
    surveys = set(
        Case.objects.filter(id__in=ids_subquery(doubtful))
        .annotate(symptoms=Count("term_links", filter=Q(term_links__term__facet=Facet.SYMPTOM)))
        .filter(symptoms__gt=THRESHOLDS.survey_symptoms)
        .values_list("id", flat=True)
    )
    return [dataclasses.replace(c, confidence=POSSIBLE) if c.case_id in surveys else c for c in candidates]
