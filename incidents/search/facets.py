"""Facet counts over a case queryset, computed in the database."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from django.db.models.functions import ExtractYear

from incidents.models import Case, CaseQuerySet, CaseTerm
from incidents.selectors.facets import TERM_FACETS

from .results import FacetCount


def facet_counts(cases: CaseQuerySet) -> dict[str, list[FacetCount]]:
    """Counts per facet value for `cases`: one query per facet (7), whatever the data size."""
    ids = cases.order_by().values("id")
    result: dict[str, list[FacetCount]] = {}
    rows: QuerySet[Any, dict[str, Any]]
    for facet in TERM_FACETS:
        rows = (
            CaseTerm.objects.filter(case_id__in=ids, term__facet=facet)
            .values("term__slug", "term__name")
            .annotate(n=Count("case_id"))
            .order_by("-n", "term__name")
        )
        result[facet] = [FacetCount(r["term__slug"], r["term__name"], r["n"]) for r in rows]
    rows = (
        Case.objects.filter(id__in=ids)
        .values("organization")
        .annotate(n=Count("id"))
        .order_by("-n", "organization")
    )
    result["organization"] = [FacetCount(r["organization"], r["organization"], r["n"]) for r in rows]
    rows = (
        Case.objects.filter(id__in=ids)
        .annotate(year=ExtractYear("published"))
        .values("year")
        .annotate(n=Count("id"))
        .order_by("-year")
    )
    result["year"] = [FacetCount(str(r["year"]), str(r["year"]), r["n"]) for r in rows]
    rows = (
        Case.objects.filter(id__in=ids, accelerator__isnull=False)
        .values("accelerator")
        .annotate(n=Count("id"))
        .order_by("-n", "accelerator")
    )
    result["accelerator"] = [FacetCount(r["accelerator"], r["accelerator"], r["n"]) for r in rows]
    return result
