"""Statistics over the published cases, for the stats page and `GET /api/stats`."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from .. import store_cache
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
    # Every accelerator term the cases name, a family counting the cases of all its models.
    by_accelerator: list[tuple[Term, int]]
    accelerator_counts: list[int]  # reported accelerator counts, ascending
    time_to_resolve_seconds: list[int]  # known TTRs, ascending

    @property
    def by_accelerator_family(self) -> list[tuple[Term, int]]:
        """Accelerator families (terms without a family) and their cases, most first: a case
        on A100 80GB counts for A100, as do those naming only the family."""
        return [(term, n) for term, n in self.by_accelerator if term.family_id is None]

    @property
    def with_accelerator(self) -> int:
        """Published cases that name an accelerator (each counts for one family)."""
        return sum(n for _, n in self.by_accelerator_family)


def published_count() -> int:
    """How many cases are published: from the store cache for the current store generation
    (`store_cache.cached`), else one count over every case."""
    return store_cache.cached("published-count", Case.objects.published().count)


def case_stats() -> CaseStats:
    """Statistics over published cases: held in this process for the current store
    generation (`store_cache.local`: they read every case, and the lists of counts grow
    with them); when not held, a fixed 8 queries whatever the data size."""
    return store_cache.local("case-stats", _compute_case_stats)


def _compute_case_stats() -> CaseStats:
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

    return CaseStats(
        total=published.count(),
        by_year=list(by_year),
        by_root_cause=terms_with_counts(Facet.ROOT_CAUSE, ids),
        by_symptom=terms_with_counts(Facet.SYMPTOM, ids),
        by_component=terms_with_counts(Facet.COMPONENT, ids),
        by_accelerator=terms_with_counts(Facet.ACCELERATOR, ids),
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
