"""Statistics over the published cases, for the stats page and `GET /api/stats`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, QuerySet

from ..models import Case, Facet, Term
from .vocabulary import terms_with_counts


@dataclass(frozen=True)
class CaseStats:
    """Counts over published cases, each list most frequent first (years in order)."""

    total: int
    by_year: list[tuple[int, int]]
    by_root_cause: list[tuple[Term, int]]
    by_symptom: list[tuple[Term, int]]
    by_component: list[tuple[Term, int]]
    by_accelerator: list[tuple[str, int]]
    accelerator_counts: list[int]  # reported accelerator counts, ascending
    time_to_resolve_seconds: list[int]  # known TTRs, ascending


def case_stats() -> CaseStats:
    """Statistics over published cases: a fixed 8 queries whatever the data size."""
    from django.db.models.functions import ExtractYear

    published = Case.objects.published()
    ids = published.values("id")
    by_year = (
        published.annotate(year=ExtractYear("published"))
        .values("year")
        .annotate(n=Count("id"))
        .order_by("year")
        .values_list("year", "n")
    )

    by_accelerator: QuerySet[Any, Any] = (
        published.exclude(accelerator=None)
        .values("accelerator")
        .annotate(n=Count("id"))
        .order_by("-n", "accelerator")
        .values_list("accelerator", "n")
    )
    return CaseStats(
        total=published.count(),
        by_year=list(by_year),
        by_root_cause=terms_with_counts(Facet.ROOT_CAUSE, ids),
        by_symptom=terms_with_counts(Facet.SYMPTOM, ids),
        by_component=terms_with_counts(Facet.COMPONENT, ids),
        by_accelerator=list(by_accelerator),
        accelerator_counts=[
            n
            for n in published.exclude(accelerator_count=None)
            .order_by("accelerator_count")
            .values_list("accelerator_count", flat=True)
            if n is not None
        ],
        time_to_resolve_seconds=[
            n
            for n in published.exclude(time_to_resolve_seconds=None)
            .order_by("time_to_resolve_seconds")
            .values_list("time_to_resolve_seconds", flat=True)
            if n is not None
        ],
    )
