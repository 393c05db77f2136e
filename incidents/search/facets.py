"""Facet counts over a case queryset, computed in the database."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from django.db.models.functions import ExtractYear

from incidents.models import Case, CaseQuerySet, CaseTerm
from incidents.selectors.facets import FACETS
from incidents.selectors.scale import SCALE_BANDS

from .results import FacetCount


def facet_counts(cases: CaseQuerySet) -> dict[str, list[FacetCount]]:
    """Counts per facet value for `cases`: one query per facet of the registry (10: eight
    term facets, year, scale), whatever the data size. An accelerator family counts the cases of
    all its models; scale bands come in band order, only those with cases."""
    ids = cases.order_by().values("id")
    result: dict[str, list[FacetCount]] = {}
    rows: QuerySet[Any, dict[str, Any]]
    for spec in FACETS:  # in the registry's order
        if spec.is_term:
            rows = (
                CaseTerm.objects.filter(case_id__in=ids, term__facet=spec.name)
                .values("term__slug", "term__name")
                .annotate(n=Count("case_id"))
                .order_by("-n", "term__name")
            )
            result[spec.name] = [FacetCount(r["term__slug"], r["term__name"], r["n"]) for r in rows]
        elif spec.kind == "year":
            rows = (
                Case.objects.filter(id__in=ids)
                .annotate(year=ExtractYear("published"))
                .values("year")
                .annotate(n=Count("id"))
                .order_by("-year")
            )
            result[spec.name] = [FacetCount(str(r["year"]), str(r["year"]), r["n"]) for r in rows]
        elif spec.kind == "band":
            bands = Case.objects.filter(id__in=ids).aggregate(
                **{band.slug: Count("id", filter=band.condition()) for band in SCALE_BANDS}
            )
            result[spec.name] = [
                FacetCount(b.slug, b.label, bands[b.slug]) for b in SCALE_BANDS if bands[b.slug]
            ]
        else:
            rows = (
                Case.objects.filter(id__in=ids, **{f"{spec.name}__isnull": False})
                .values(spec.name)
                .annotate(n=Count("id"))
                .order_by("-n", spec.name)
            )
            result[spec.name] = [FacetCount(r[spec.name], r[spec.name], r["n"]) for r in rows]
    return result
