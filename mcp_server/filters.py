"""Filter arguments of search_incidents and list_incidents: parsing into `CaseFilters`.

Term filters accept a slug, a name or a synonym in any case (`nccl-timeout`, `NCCL timeout`,
`watchdog timeout`); an unknown value is refused with the nearest valid values.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from incidents import lookups, selectors
from incidents.models import Facet, Term
from incidents.selectors import CaseFilters

from .suggest import nearest_strings, nearest_terms, resolve_term

LIST_ALL_BELOW = 15

Topic = Annotated[
    str | None,
    Field(max_length=120, description="Topic slug or name, e.g. training, networking (see vocab)."),
]
Symptom = Annotated[
    str | None,
    Field(
        max_length=120, description="Symptom tag slug, name or synonym, e.g. nccl-timeout or 'Training hang'."
    ),
]
RootCause = Annotated[
    str | None, Field(max_length=120, description="Root-cause category slug or name, e.g. hardware-fault.")
]
Component = Annotated[
    str | None,
    Field(max_length=120, description="Component slug or name, e.g. nccl, InfiniBand, Kubernetes."),
]
Organization = Annotated[
    str | None, Field(max_length=200, description="Organization that ran the system, e.g. Meta (any case).")
]
Year = Annotated[
    int | None, Field(ge=1990, le=2100, description="Year the public account was published, e.g. 2023.")
]


def _unknown_term(facet: str, value: str, terms: list[Term]) -> ToolError:
    near = nearest_terms(value, terms)
    shown = near or (terms if len(terms) <= LIST_ALL_BELOW else [])
    label = "Nearest" if near else "Valid values"
    message = f"Unknown {facet} {value!r}."
    if shown:
        message += f" {label}: " + ", ".join(f"{t.slug} ({t.name})" for t in shown) + "."
    message += f" All {len(terms)} values: call vocab with facet={facet!r}."
    return ToolError(message)


def _unknown_organization(value: str, known: list[str]) -> ToolError:
    near = nearest_strings(value, known)
    message = f"Unknown organization {value!r}."
    if near:
        message += " Nearest: " + ", ".join(near) + "."
    elif len(known) <= LIST_ALL_BELOW:
        message += " Valid values: " + ", ".join(known) + "."
    return ToolError(message + " Or use search_incidents with the name as the query.")


def build_filters(
    *,
    topic: str | None = None,
    symptom: str | None = None,
    root_cause: str | None = None,
    component: str | None = None,
    organization: str | None = None,
    year: int | None = None,
) -> CaseFilters:
    """`CaseFilters` for the given values (slugs resolved from names and synonyms).

    Raises ToolError naming the nearest valid values when a value is unknown. Costs one
    query when a term filter is given and one when an organization is.
    """
    include: dict[str, tuple[str, ...]] = {}
    term_values = {
        Facet.TOPIC: topic,
        Facet.SYMPTOM: symptom,
        Facet.ROOT_CAUSE: root_cause,
        Facet.COMPONENT: component,
    }
    if any(v is not None and v.strip() for v in term_values.values()):
        by_facet: dict[str, list[Term]] = {}
        for term in selectors.vocabulary():
            by_facet.setdefault(term.facet, []).append(term)
        for facet, value in term_values.items():
            if value is None or not value.strip():
                continue
            terms = by_facet.get(str(facet), [])
            found = resolve_term(value, terms)
            if found is None:
                raise _unknown_term(str(facet), value, terms)
            include[str(facet)] = (found.slug,)
    if organization is not None and organization.strip():
        known = [name for name, _ in lookups.organizations()]
        wanted = organization.strip().casefold()
        match = next((name for name in known if name.casefold() == wanted), None)
        if match is None:
            raise _unknown_organization(organization, known)
        include["organization"] = (match,)
    if year is not None:
        include["year"] = (str(year),)
    return CaseFilters(include=include)


def filter_arguments(filters: CaseFilters) -> dict[str, str]:
    """The resolved filter values, for cursor keys."""
    return {facet: values[0] for facet, values in sorted(filters.include.items())}
