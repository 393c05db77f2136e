"""The facet registry: every facet a case list can be filtered or counted by, in one table.

Each `FacetSpec` says how the facet is named in URLs and tool arguments (`symptom`), how
it is excluded (`exclude_symptom`), what a person reads (`Symptom`), how its values are
spelled and stored, and which URL segment its vocabulary pages use. Pages, the API, MCP,
the OpenAPI description and the filter parser all read this table; nothing else lists
facets.
"""

from __future__ import annotations

import datetime
import functools
import operator
from dataclasses import dataclass, field
from typing import Literal

from django.db.models import Q

from ..models import CaseQuerySet, CaseTerm
from .scale import BOUND_PARAMS, BOUNDS_BY_PARAM, SCALE_BANDS_BY_SLUG

EXCLUDE_PREFIX = "exclude_"

# "term": a vocabulary facet; "value": a case field; "year": publication year; "band": a
# band of a case's accelerator count (`scale.SCALE_BANDS`).
Kind = Literal["term", "value", "year", "band"]


@dataclass(frozen=True)
class FacetSpec:
    """One facet: `name` is also its query parameter and tool argument."""

    name: str
    label: str  # what a person reads, e.g. "Root cause"
    kind: Kind
    spelling: str  # how a value may be written, for help texts
    segment: str | None = None  # URL segment of the vocabulary pages (term facets)

    @property
    def param(self) -> str:
        return self.name

    @property
    def exclude_param(self) -> str:
        return EXCLUDE_PREFIX + self.name

    @property
    def is_term(self) -> bool:
        return self.kind == "term"


FACETS: tuple[FacetSpec, ...] = (
    FacetSpec("topic", "Topic", "term", "a topic's slug, name or synonym (see /vocab/)", "topic"),
    FacetSpec("symptom", "Symptom", "term", "a symptom tag's slug, name or synonym (see /vocab/)", "symptom"),
    FacetSpec(
        "root_cause",
        "Root cause",
        "term",
        "a root-cause category's slug, name or synonym (see /vocab/)",
        "root-cause",
    ),
    FacetSpec(
        "component", "Component", "term", "a component's slug, name or synonym (see /vocab/)", "component"
    ),
    FacetSpec(
        "organization",
        "Organization",
        "term",
        "an organization's slug, name or alias (see /vocab/)",
        "organization",
    ),
    FacetSpec("year", "Year", "year", "a publication year such as 2024"),
    FacetSpec(
        "accelerator",
        "Accelerator",
        "term",
        "an accelerator model or family: slug, name or alias (a100, NVIDIA A100 80GB; see /vocab/); "
        "a family finds every model's cases",
        "accelerator",
    ),
    FacetSpec(
        "workload",
        "Workload",
        "term",
        "a workload's slug, name or synonym: training, inference or fleet (see /vocab/)",
        "workload",
    ),
    FacetSpec(
        "scale",
        "Scale",
        "band",
        "a band of accelerator count: under-64, 64-1023, 1024-9999 or 10000-plus",
    ),
    # Its pages are /codes/<slug>, not the vocabulary's (no segment).
    FacetSpec("error_code", "Error code", "term", "an error code's slug, name or synonym (see /codes/)"),
)
FACETS_BY_NAME: dict[str, FacetSpec] = {spec.name: spec for spec in FACETS}
FILTER_FACETS: tuple[str, ...] = tuple(spec.name for spec in FACETS)
TERM_FACETS: tuple[str, ...] = tuple(spec.name for spec in FACETS if spec.is_term)
FACETS_BY_SEGMENT: dict[str, str] = {spec.segment: spec.name for spec in FACETS if spec.segment}
FILTER_PARAMS: tuple[str, ...] = (
    *(spec.param for spec in FACETS),
    *(spec.exclude_param for spec in FACETS),
    *BOUND_PARAMS,
)


def facet_label(name: str) -> str:
    """The label of facet or numeric bound `name` ("root_cause" -> "Root cause",
    "min_nodes" -> "Nodes")."""
    spec = FACETS_BY_NAME.get(name)
    if spec is None and name in BOUNDS_BY_PARAM:
        return BOUNDS_BY_PARAM[name].label
    return spec.label if spec else name.replace("_", " ").capitalize()


@dataclass(frozen=True)
class CaseFilters:
    """Facet filters: values within one facet combine with OR, facets with AND.

    Values are canonical: slugs for term facets (organization and accelerator included; an
    accelerator family's slug matches the cases of all its models), four-digit years, band
    slugs for `scale`. Each facet has an exclusion twin whose values remove cases.
    `published_after` / `published_before` keep cases published on or after / on or before
    those dates (both ends inclusive). `bounds` maps `min_accelerators`, `max_accelerators`,
    `min_nodes`, `max_nodes` to whole numbers (both ends inclusive; a case whose count is not
    stated is left out). `labels` maps (facet, value) to what a person reads (a term's name),
    for the values the parser resolved; `term_ids` maps (facet, slug) to the term's id for
    the same values. `notes` says what the parser read otherwise than it was written
    (`'training' is a workload now, not a topic: ...`: `params.moved_note`), for every door's
    answer to carry (the search's notes). None of these three takes part in equality.
    """

    include: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: dict[str, tuple[str, ...]] = field(default_factory=dict)
    published_after: datetime.date | None = None
    published_before: datetime.date | None = None
    bounds: dict[str, int] = field(default_factory=dict)
    labels: dict[tuple[str, str], str] = field(default_factory=dict, compare=False, repr=False)
    term_ids: dict[tuple[str, str], int] = field(default_factory=dict, compare=False, repr=False)
    notes: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def label(self, facet: str, value: str) -> str:
        return self.labels.get((facet, value), value)


def _facet_condition(facet: str, values: tuple[str, ...], term_ids: dict[tuple[str, str], int]) -> Q:
    spec = FACETS_BY_NAME[facet]
    if spec.is_term:
        ids = [term_ids.get((facet, value)) for value in values]
        if all(ids):
            # By id, PostgreSQL estimates each term's cases from the column's statistics; by
            # a join on the slug it guessed few and walked every case in date order.
            matching = CaseTerm.objects.filter(term_id__in=ids)
        else:
            matching = CaseTerm.objects.filter(term__facet=facet, term__slug__in=values)
        return Q(id__in=matching.values("case_id"))
    if spec.kind == "year":
        return Q(published__year__in=[int(v) for v in values])
    if spec.kind == "band":
        return functools.reduce(operator.or_, (SCALE_BANDS_BY_SLUG[v].condition() for v in values))
    return Q(**{f"{facet}__in": values})


def filter_cases(queryset: CaseQuerySet, filters: CaseFilters | None) -> CaseQuerySet:
    """Apply facet filters to a case queryset (no query runs here)."""
    if not filters:
        return queryset
    for facet, values in filters.include.items():
        if values:
            queryset = queryset.filter(_facet_condition(facet, values, filters.term_ids))
    for facet, values in filters.exclude.items():
        if values:
            queryset = queryset.exclude(_facet_condition(facet, values, filters.term_ids))
    if filters.published_after is not None:
        queryset = queryset.filter(published__gte=filters.published_after)
    if filters.published_before is not None:
        queryset = queryset.filter(published__lte=filters.published_before)
    for param, value in filters.bounds.items():
        queryset = queryset.filter(BOUNDS_BY_PARAM[param].condition(value))
    return queryset
