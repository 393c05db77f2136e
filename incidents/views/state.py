"""The whole state of the search page, read from and written back to its query string.

`/cases/?q=hang&symptom=nccl-timeout&symptom=training-hang&exclude_component=dns&sort=newest&page=2`

- `q`: search text (blank: browse everything);
- `<facet>` (repeatable): keep cases with one of these values (`topic`, `symptom`,
  `root_cause`, `component`, `organization`, `accelerator` take a slug, name or synonym,
  an accelerator family every model's cases; `year`), written back as slugs;
- `exclude_<facet>` (repeatable): drop cases with any of these values;
- `published_after`, `published_before`: a date range (YYYY-MM-DD, both ends inclusive);
- `min_accelerators`, `max_accelerators`, `min_nodes`, `max_nodes`: whole-number bounds on
  the case's accelerator and node counts (both ends inclusive);
- `sort`: `relevance` (only meaningful with `q`), `newest` or `oldest`;
- `page`: 1-based page number.

Every link on the page (facet values, chips, sort, pages) is built from this state with one
thing changed, so a copied URL always reproduces the page. The meaning of the parameters
(and every problem with them) comes from `incidents.selectors.parse_search`, the parser the
API and MCP use too.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

from django.http import QueryDict

from incidents.selectors import (
    FILTER_FACETS,
    SORTS,
    CaseFilters,
    SearchParams,
    facet_label,
    is_blank,
    whole_number,
)
from incidents.selectors.facets import EXCLUDE_PREFIX, FACETS_BY_NAME
from incidents.selectors.params import (
    MAX_QUERY_CHARS,
    MAX_VALUE_CHARS,
    MAX_VALUES_PER_FACET,
    MAX_YEAR,
    MIN_YEAR,
)
from incidents.selectors.scale import BOUND_PARAMS, BOUNDS_BY_PARAM, MAX_BOUND

DATE_PARAMS = ("published_after", "published_before")

# Kept for templates and views that label facets by name.
FACET_LABELS: dict[str, str] = {name: spec.label for name, spec in FACETS_BY_NAME.items()}


def given_page(query: QueryDict) -> str | None:
    """The first `page` that is not blank (`selectors.is_blank`: `page=2&page=` is page 2,
    as the API reads it), or None."""
    return next((value for value in query.getlist("page") if not is_blank(value)), None)


def _date(text: str) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(text.strip())
    except ValueError:
        return None


def _bound(text: str) -> int | None:
    number = whole_number(text)
    return number if number is not None and 0 <= number <= MAX_BOUND else None


def _clean_values(facet: str, raw: list[str]) -> tuple[str, ...]:
    """Distinct non-blank values in given order; years must be numbers (others are dropped)."""
    values: list[str] = []
    for value in raw:
        value = value.strip()[:MAX_VALUE_CHARS]
        if not value or value in values:
            continue
        if facet == "year" and not MIN_YEAR <= (whole_number(value) or 0) <= MAX_YEAR:
            continue
        values.append(value)
    return tuple(values[:MAX_VALUES_PER_FACET])


@dataclass(frozen=True)
class Chip:
    """One active filter as shown above the results, with the URL that removes it."""

    facet: str
    value: str
    label: str
    excluded: bool
    remove_url: str

    @property
    def facet_label(self) -> str:
        return facet_label(self.facet)


@dataclass(frozen=True)
class SearchState:
    """Query text, included and excluded facet values, sort and page of `/cases/`."""

    q: str = ""
    include: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sort: str = ""
    page: int = 1
    published_after: datetime.date | None = None
    published_before: datetime.date | None = None
    bounds: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_query(cls, query: QueryDict) -> SearchState:
        """What the query string says, read without the database: malformed values are left
        out here. The page itself reads the parameters with `selectors.parse_search`, which
        reports every problem, and keeps its understanding with `resolved`."""
        q = query.get("q", "").replace("\x00", " ").strip()[:MAX_QUERY_CHARS]
        include = {f: v for f in FILTER_FACETS if (v := _clean_values(f, query.getlist(f)))}
        exclude = {f: v for f in FILTER_FACETS if (v := _clean_values(f, query.getlist(EXCLUDE_PREFIX + f)))}
        sort = query.get("sort", "")
        if sort not in SORTS or (sort == "relevance" and not q):
            sort = ""
        # The parser's rule (digits 0-9): `page=٣` is reported and page 1 shown, not page 3.
        page = max(1, whole_number(given_page(query) or "1") or 1)
        dates = [_date(query.get(name, "")) for name in DATE_PARAMS]
        bounds = {name: n for name in BOUND_PARAMS if (n := _bound(query.get(name, ""))) is not None}
        return cls(
            q=q,
            include=include,
            exclude=exclude,
            sort=sort,
            page=page,
            published_after=dates[0],
            published_before=dates[1],
            bounds=bounds,
        )

    def resolved(self, search: SearchParams) -> SearchState:
        """This state with the text, filters and sort `parse_search` understood: values in
        their canonical spelling (slugs, stored names), values it refused left out."""
        filters = search.filters
        return replace(
            self,
            q=search.q,
            include=dict(filters.include),
            exclude=dict(filters.exclude),
            sort=search.sort,
            published_after=filters.published_after,
            published_before=filters.published_before,
            bounds=dict(filters.bounds),
        )

    # What the search module receives.
    @property
    def effective_sort(self) -> str:
        """The sort actually used: best match with a query, newest first without one."""
        return self.sort or ("relevance" if self.q else "newest")

    def filters(self) -> CaseFilters:
        return CaseFilters(
            include=dict(self.include),
            exclude=dict(self.exclude),
            published_after=self.published_after,
            published_before=self.published_before,
            bounds=dict(self.bounds),
        )

    def has_filters(self) -> bool:
        return (
            any(self.include.values())
            or any(self.exclude.values())
            or self.published_after is not None
            or self.published_before is not None
            or bool(self.bounds)
        )

    # Building URLs.
    def params(self, *, page: bool = True) -> list[tuple[str, str]]:
        """The state as ordered query parameters (defaults left out, so URLs stay short)."""
        pairs: list[tuple[str, str]] = []
        if self.q:
            pairs.append(("q", self.q))
        for facet in FILTER_FACETS:
            pairs += [(facet, v) for v in self.include.get(facet, ())]
        for facet in FILTER_FACETS:
            pairs += [(EXCLUDE_PREFIX + facet, v) for v in self.exclude.get(facet, ())]
        for name in DATE_PARAMS:
            if (day := getattr(self, name)) is not None:
                pairs.append((name, day.isoformat()))
        pairs += [(name, str(self.bounds[name])) for name in BOUND_PARAMS if name in self.bounds]
        if self.sort:
            pairs.append(("sort", self.sort))
        if page and self.page > 1:
            pairs.append(("page", str(self.page)))
        return pairs

    def query_string(self, *, page: bool = True) -> str:
        params = self.params(page=page)
        return "?" + urlencode(params) if params else ""

    def url(self, base: str) -> str:
        return base + self.query_string()

    def with_page(self, page: int) -> SearchState:
        return replace(self, page=page)

    def _with(self, which: str, facet: str, values: tuple[str, ...]) -> SearchState:
        mapping = dict(getattr(self, which))
        if values:
            mapping[facet] = values
        else:
            mapping.pop(facet, None)
        # A changed filter changes the result set: start again at page 1.
        if which == "include":
            return replace(self, include=mapping, page=1)
        return replace(self, exclude=mapping, page=1)

    def adding(self, facet: str, value: str) -> SearchState:
        """Also keep cases with `value` (and stop excluding it)."""
        current = self.include.get(facet, ())
        state = self._with("include", facet, current if value in current else (*current, value))
        return state.without_exclusion(facet, value)

    def excluding(self, facet: str, value: str) -> SearchState:
        """Drop cases with `value` (and stop requiring it)."""
        current = self.exclude.get(facet, ())
        state = self._with("exclude", facet, current if value in current else (*current, value))
        return state.without_inclusion(facet, value)

    def without_inclusion(self, facet: str, value: str) -> SearchState:
        values = tuple(v for v in self.include.get(facet, ()) if v != value)
        return self._with("include", facet, values)

    def without_exclusion(self, facet: str, value: str) -> SearchState:
        values = tuple(v for v in self.exclude.get(facet, ()) if v != value)
        return self._with("exclude", facet, values)

    def without_query(self) -> SearchState:
        return replace(self, q="", sort="" if self.sort == "relevance" else self.sort, page=1)

    def without_filters(self) -> SearchState:
        return replace(
            self, include={}, exclude={}, published_after=None, published_before=None, bounds={}, page=1
        )

    def without_date(self, name: str) -> SearchState:
        if name == "published_after":
            return replace(self, published_after=None, page=1)
        return replace(self, published_before=None, page=1)

    def without_bound(self, name: str) -> SearchState:
        return replace(self, bounds={k: v for k, v in self.bounds.items() if k != name}, page=1)

    def without_chip(self, chip: Chip) -> SearchState:
        """This state without the filter `chip` shows."""
        if chip.facet in DATE_PARAMS:
            return self.without_date(chip.facet)
        if chip.facet in BOUNDS_BY_PARAM:
            return self.without_bound(chip.facet)
        if chip.excluded:
            return self.without_exclusion(chip.facet, chip.value)
        return self.without_inclusion(chip.facet, chip.value)

    def sorted_by(self, sort: str) -> SearchState:
        return replace(self, sort=sort, page=1)

    def chips(self, base: str, labels: dict[tuple[str, str], str]) -> list[Chip]:
        """Active filters in URL order, each with its remove URL; `labels` names term slugs."""
        chips = []
        for facet in FILTER_FACETS:
            for value in self.include.get(facet, ()):
                chips.append(
                    Chip(
                        facet,
                        value,
                        labels.get((facet, value), value),
                        False,
                        self.without_inclusion(facet, value).url(base),
                    )
                )
        for facet in FILTER_FACETS:
            for value in self.exclude.get(facet, ()):
                chips.append(
                    Chip(
                        facet,
                        value,
                        labels.get((facet, value), value),
                        True,
                        self.without_exclusion(facet, value).url(base),
                    )
                )
        for name in DATE_PARAMS:
            if (day := getattr(self, name)) is not None:
                chips.append(
                    Chip(name, day.isoformat(), day.isoformat(), False, self.without_date(name).url(base))
                )
        for name in BOUND_PARAMS:
            if name in self.bounds:
                bound = self.bounds[name]
                label = BOUNDS_BY_PARAM[name].describe(bound)
                chips.append(Chip(name, str(bound), label, False, self.without_bound(name).url(base)))
        return chips
