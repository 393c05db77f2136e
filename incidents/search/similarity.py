"""Similar cases: shared vocabulary weighted by rarity.

First version computes on read; the stored-neighbours version replaces it.
"""

from __future__ import annotations

import math

from incidents.models import Case

from .results import SimilarCase


def similar_cases(case: Case, *, limit: int = 5) -> list[SimilarCase]:
    """Published cases sharing terms with `case`, best first, with the shared terms."""
    others = list(Case.objects.published().exclude(id=case.id).with_summary())
    total = len(others) + 1
    mine = {(t.facet, t.slug): t for t in [*case.topics, *case.symptom_tags, *case.components]}
    mine[("root_cause", case.root_cause_category.slug)] = case.root_cause_category
    frequency: dict[tuple[str, str], int] = {}
    for other in [case, *others]:
        keys = {(t.facet, t.slug) for t in [*other.topics, *other.symptom_tags, *other.components]}
        keys.add(("root_cause", other.root_cause_category.slug))
        for key in keys:
            frequency[key] = frequency.get(key, 0) + 1
    results = []
    for other in others:
        theirs = {(t.facet, t.slug) for t in [*other.topics, *other.symptom_tags, *other.components]}
        theirs.add(("root_cause", other.root_cause_category.slug))
        shared = set(mine) & theirs
        if not shared:
            continue
        score = sum(math.log(total / frequency[key]) for key in shared)
        norm = sum(math.log(total / frequency[key]) for key in mine) or 1.0
        by_facet: dict[str, list[str]] = {}
        for facet, slug in sorted(shared):
            by_facet.setdefault(facet, []).append(mine[(facet, slug)].name)
        results.append(SimilarCase(other, round(score / norm, 4), by_facet,
                                   {"vocabulary": round(score / norm, 4)}))
    results.sort(key=lambda r: (-r.score, r.case.id))
    return results[:limit]
