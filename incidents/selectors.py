"""Reads from the case store. HTML views, the JSON API and the MCP tools all call these;
none of them builds its own queries.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet

from .models import Case, CaseQuerySet, CaseTerm, Facet, Term

TERM_FACETS: tuple[str, ...] = (Facet.TOPIC, Facet.SYMPTOM, Facet.COMPONENT)


@dataclass(frozen=True)
class CaseFilters:
    """Facet filters: values within one facet combine with OR, facets with AND.

    Term facets take slugs (`topic`, `symptom`, `root_cause`, `component`); `organization`
    and `accelerator` take exact names; `year` takes publication years. Each has an
    `exclude` twin whose values remove cases. `published_after` / `published_before` keep
    cases published on or after / on or before those dates (both ends inclusive).
    """

    include: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: dict[str, tuple[str, ...]] = field(default_factory=dict)
    published_after: datetime.date | None = None
    published_before: datetime.date | None = None

    def is_empty(self) -> bool:
        return (
            not any(self.include.values())
            and not any(self.exclude.values())
            and self.published_after is None
            and self.published_before is None
        )


FILTER_FACETS: tuple[str, ...] = (
    "topic",
    "symptom",
    "root_cause",
    "component",
    "organization",
    "year",
    "accelerator",
)


def _facet_condition(facet: str, values: tuple[str, ...]) -> Q:
    if facet in TERM_FACETS:
        matching = CaseTerm.objects.filter(term__facet=facet, term__slug__in=values)
        return Q(id__in=matching.values("case_id"))
    if facet == Facet.ROOT_CAUSE:
        return Q(root_cause_category__slug__in=values)
    if facet == "organization":
        return Q(organization__in=values)
    if facet == "accelerator":
        return Q(accelerator__in=values)
    if facet == "year":
        return Q(published__year__in=[int(v) for v in values])
    raise ValueError(f"unknown facet {facet!r}")


def filter_cases(queryset: CaseQuerySet, filters: CaseFilters | None) -> CaseQuerySet:
    """Apply facet filters to a case queryset (no query runs here)."""
    if not filters:
        return queryset
    for facet, values in filters.include.items():
        if values:
            queryset = queryset.filter(_facet_condition(facet, values))
    for facet, values in filters.exclude.items():
        if values:
            queryset = queryset.exclude(_facet_condition(facet, values))
    if filters.published_after is not None:
        queryset = queryset.filter(published__gte=filters.published_after)
    if filters.published_before is not None:
        queryset = queryset.filter(published__lte=filters.published_before)
    return queryset


def case_list(*, filters: CaseFilters | None = None) -> CaseQuerySet:
    """Published cases, newest first, with what a list entry shows prefetched.

    Evaluating a page costs 3 queries whatever its size: cases, term links, (count by paginator).
    """
    return filter_cases(Case.objects.published(), filters).newest_first().with_summary()


def case_by_id(case_id: str) -> Case | None:
    """A published or retracted case with everything its document needs, or None.

    Costs a fixed 8 queries (case with root cause, then prefetches of terms, sources,
    scale tables, their columns and rows, related links).
    """
    return Case.objects.visible().with_document().filter(id=case_id).first()


def canonical_case_id(case_id: str) -> str | None:
    """The stored id matching `case_id` case-insensitively (`il-0428` -> `IL-0428`), or None."""
    return Case.objects.visible().filter(id__iexact=case_id).values_list("id", flat=True).first()


def visible_case_row(case_id: str) -> Case | None:
    """The published or retracted case with exactly this id, without prefetches: one query."""
    return Case.objects.visible().filter(id=case_id).first()


def redirect_target(case_id: str) -> str | None:
    """Where a request for `case_id` that is no visible case's exact id goes instead: the
    stored spelling of a visible case (`il-0428` -> `IL-0428`) or, for an id merged into
    another case, the kept case. None when there is nowhere to go. One query."""
    row = (
        Case.objects.filter(id__iexact=case_id, status__in=[*Case.PUBLIC_STATUSES, Case.Status.MERGED])
        .values_list("id", "status", "merged_into_id")
        .first()
    )
    if row is None:
        return None
    stored, status, kept = row
    target = kept if status == Case.Status.MERGED else stored
    return target if target != case_id else None


def related_cases(case: Case) -> list[Case]:
    """Hand-linked related cases that are visible, in the editor's order (prefetched)."""
    return [link.target for link in case.related_links.all() if link.target.status in Case.PUBLIC_STATUSES]


def vocabulary(facet: Facet | str | None = None) -> list[Term]:
    """Terms with `case_count` (published cases), one query for every facet or one facet."""
    terms = Term.objects.with_case_counts()
    if facet:
        terms = terms.of(facet)
    return list(terms.order_by("facet", "name"))


def terms_with_counts(
    facet: Facet | str, case_ids: QuerySet, *, limit: int | None = None
) -> list[tuple[Term, int]]:
    """Terms of `facet` used by the cases in `case_ids` (a `values("id")` queryset) with how
    many of those cases use each, most frequent first: one query."""
    if facet == Facet.ROOT_CAUSE:
        terms = (
            Term.objects.of(facet)
            .filter(root_cause_cases__in=case_ids)
            .annotate(case_count=Count("root_cause_cases"))  # type: ignore[no-redef]
        )
    else:
        terms = (
            Term.objects.of(facet)
            .filter(case_links__case__in=case_ids)
            .annotate(case_count=Count("case_links"))  # type: ignore[no-redef]
        )
    terms = terms.order_by("-case_count", "name")
    return [(t, t.case_count) for t in (terms[:limit] if limit else terms)]


@dataclass(frozen=True)
class TopicOverview:
    """What one topic holds: its term, case count, frequent co-occurring terms, latest cases."""

    topic: Term
    case_count: int
    top_symptoms: list[tuple[Term, int]]
    top_root_causes: list[tuple[Term, int]]
    top_components: list[tuple[Term, int]]
    latest_cases: list[Case]


def topic_overview(slug: str, *, top: int = 5, latest: int = 5) -> TopicOverview | None:
    """The overview of topic `slug`, or None if there is no such topic. Fixed 7 queries."""
    topic = Term.objects.of(Facet.TOPIC).filter(slug=slug).first()
    if topic is None:
        return None
    in_topic = Case.objects.published().filter(term_links__term=topic)
    ids = in_topic.values("id")

    return TopicOverview(
        topic=topic,
        case_count=in_topic.count(),
        top_symptoms=terms_with_counts(Facet.SYMPTOM, ids, limit=top),
        top_root_causes=terms_with_counts(Facet.ROOT_CAUSE, ids, limit=top),
        top_components=terms_with_counts(Facet.COMPONENT, ids, limit=top),
        latest_cases=list(in_topic.newest_first().with_summary()[:latest]),
    )


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
