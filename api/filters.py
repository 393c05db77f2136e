"""Facet filters from the query string, checked against the vocabulary.

`topic`, `symptom`, `root_cause`, `component` take term slugs (as listed by
`/api/vocab/{facet}`), `organization` and `accelerator` exact names as they appear on
cases, `year` publication years. Each is repeatable (values combine with OR); its twin
`exclude_<facet>` removes cases having any of the given values. Facets combine with AND.

A value that is not known is refused (400) with the closest known values as suggestions:
terms are matched on slug, name and synonyms, so `symptom=NCCL timeout` suggests
`nccl-timeout`. Checking costs one query for all term facets and one for each of
`organization` / `accelerator` when used; nothing when no filter is given.
"""

from __future__ import annotations

import difflib

from incidents import feeds, selectors
from incidents.models import Facet
from incidents.selectors import FILTER_FACETS, CaseFilters

from .params import ParamReader

TERM_FILTERS: tuple[str, ...] = (Facet.TOPIC, Facet.SYMPTOM, Facet.ROOT_CAUSE, Facet.COMPONENT)
EXCLUDE_PREFIX = "exclude_"
FILTER_PARAMS: tuple[str, ...] = (
    *FILTER_FACETS,
    *(f"{EXCLUDE_PREFIX}{facet}" for facet in FILTER_FACETS),
)
MIN_YEAR, MAX_YEAR = 1900, 2100
MAX_SUGGESTIONS = 3


def _spelling(text: str) -> str:
    """Lower case, with hyphens and underscores read as spaces (slugs and names compare)."""
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


class _Known:
    """Accepted values of one facet plus spellings that point at them."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.aliases: dict[str, str] = {}

    def add(self, value: str, *aliases: str) -> None:
        self.values.append(value)
        for alias in (value, *aliases):
            self.aliases.setdefault(_spelling(alias), value)

    def suggestions(self, given: str) -> list[str]:
        lowered = _spelling(given)
        found: list[str] = []
        if lowered in self.aliases:
            found.append(self.aliases[lowered])
        for alias in difflib.get_close_matches(lowered, list(self.aliases), n=10, cutoff=0.6):
            found.append(self.aliases[alias])
        for alias, value in self.aliases.items():
            if lowered and len(lowered) >= 3 and lowered in alias:
                found.append(value)
        return list(dict.fromkeys(found))[:MAX_SUGGESTIONS]


def _known_values(facets: set[str]) -> dict[str, _Known]:
    known: dict[str, _Known] = {}
    if facets & set(TERM_FILTERS):
        for term in selectors.vocabulary():
            known.setdefault(term.facet, _Known()).add(term.slug, term.name, *term.synonyms)
    for facet in ("organization", "accelerator"):
        if facet in facets:
            known[facet] = _Known()
            for value in feeds.distinct_case_values(facet):
                known[facet].add(value)
    return known


def _check_years(reader: ParamReader, name: str, values: list[str]) -> list[str]:
    good = []
    for value in values:
        if value.isdigit() and MIN_YEAR <= int(value) <= MAX_YEAR:
            good.append(str(int(value)))
        else:
            reader.error(name, f"must be a year between {MIN_YEAR} and {MAX_YEAR}", value)
    return good


def read_case_filters(reader: ParamReader) -> CaseFilters:
    """Read every facet filter and the date range from `reader` into `CaseFilters`.

    Unknown values and malformed dates are recorded on `reader` (the caller's `finish()`
    raises them together with any other problem).
    """
    given = {name: reader.many(name) for name in FILTER_PARAMS}
    used = {name.removeprefix(EXCLUDE_PREFIX) for name, values in given.items() if values}
    known = _known_values(used)
    include: dict[str, tuple[str, ...]] = {}
    exclude: dict[str, tuple[str, ...]] = {}
    for name, values in given.items():
        if not values:
            continue
        facet = name.removeprefix(EXCLUDE_PREFIX)
        if facet == "year":
            accepted = _check_years(reader, name, values)
        else:
            accepted = []
            choices = known.get(facet, _Known())
            for value in values:
                if value in choices.values:
                    accepted.append(value)
                else:
                    reader.error(
                        name,
                        f"unknown {facet.replace('_', ' ')} {value!r}",
                        value,
                        choices.suggestions(value),
                    )
        target = exclude if name.startswith(EXCLUDE_PREFIX) else include
        target[facet] = tuple(accepted)
    after = reader.date("published_after")
    before = reader.date("published_before")
    if after and before and after > before:
        reader.error("published_before", "must not be earlier than published_after", before.isoformat())
    return CaseFilters(include=include, exclude=exclude, published_after=after, published_before=before)
