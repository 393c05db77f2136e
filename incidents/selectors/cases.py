"""Reads from the case store. HTML views, the JSON API and the MCP tools all call these;
none of them builds its own queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, QuerySet

from ..models import Case, Facet, Term


def case_by_id(case_id: str) -> Case | None:
    """A published or retracted case with everything its document needs, or None.

    Costs a fixed 7 queries (case with root cause, then prefetches of term links, sources,
    scale tables, their columns and rows, related links); 1 when there is no such case.
    """
    return Case.objects.visible().with_document().filter(id=case_id).first()


def visible_case_ids() -> list[str]:
    """Ids of published and retracted cases (the ones that resolve by id), sorted. One query."""
    return list(Case.objects.visible().order_by("id").values_list("id", flat=True))


def visible_case_row(case_id: str) -> Case | None:
    """The published or retracted case with exactly this id, without prefetches: one query."""
    return Case.objects.visible().filter(id=case_id).first()


def resolve_case_id(case_id: str) -> str | None:
    """The stored spelling of a visible case's id (`il-0428` -> `IL-0428`) or, for an id
    merged into another case, the kept case's id; None when neither. One query."""
    row = (
        Case.objects.filter(id__iexact=case_id, status__in=[*Case.PUBLIC_STATUSES, Case.Status.MERGED])
        .values_list("id", "status", "merged_into_id")
        .first()
    )
    if row is None:
        return None
    stored, status, kept = row
    return kept if status == Case.Status.MERGED else stored


def redirect_target(case_id: str) -> str | None:
    """Where a request for `case_id` that is no visible case's exact id goes instead
    (`resolve_case_id`), or None when there is nowhere else to go. One query."""
    target = resolve_case_id(case_id)
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


def topic_overview(topic: Term | str, *, top: int = 5, latest: int = 5) -> TopicOverview | None:
    """The overview of a topic (a `Term`, or a slug looked up exactly), or None if there is
    no such topic. Fixed 6 queries, plus 1 to look a slug up."""
    if isinstance(topic, str):
        found = Term.objects.of(Facet.TOPIC).filter(slug=topic).first()
        if found is None:
            return None
        topic = found
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
