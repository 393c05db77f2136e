"""Facet counts of a search's matches, from the case columns this process holds.

`facets.facet_counts` counts in the database: for 1,000 matches at 100,000 cases it read
each match's term links (12,000 index probes) and case row (the whole document, for its
date and accelerator count): 12 ms. With the store cache on, the same counts come from
`case_columns` (every case's links, date and accelerator count by case number): a few
array operations over the matches' numbers, no query. The same lists, in the same order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection

import numpy as np

from incidents.id_lists import ids_subquery
from incidents.models import CaseQuerySet
from incidents.selectors.facets import FACETS
from incidents.selectors.scale import SCALE_BANDS

from . import case_columns
from .case_columns import UNKNOWN, CaseColumns
from .facets import facet_counts
from .results import FacetCount


def match_facet_counts(cases: CaseQuerySet, match_ids: Collection[str]) -> dict[str, list[FacetCount]]:
    """`facets.facet_counts` of the cases of `cases` whose ids are `match_ids`, a search's
    matches, which are all among `cases` (the plan's published, allowed cases: the ranking
    ranks only those). From the process's case columns when it holds them (no query), else
    one query; the database's counts too when a match was written after the columns were
    read, or a facet counts a case field (`value` facets: none is held)."""
    columns = case_columns.held()
    numbers = None
    if columns is not None and not any(spec.kind == "value" for spec in FACETS):
        numbers = columns.numbers(list(match_ids))
    if columns is None or numbers is None:
        return facet_counts(cases.filter(id__in=ids_subquery(match_ids)))
    numbers = np.unique(numbers)
    # Published only, as `cases` are (a case retracted since it was ranked is not counted).
    return counted(columns, numbers[columns.published[numbers]])


def counted(columns: CaseColumns, numbers: np.ndarray) -> dict[str, list[FacetCount]]:
    """The facet counts of the distinct cases `numbers`, as `facets.facet_counts` gives them:
    every facet in the registry's order, term facets most frequent first then by name (the
    database's order of names), years newest first, scale bands in band order (only those
    with cases)."""
    result: dict[str, list[FacetCount]] = {spec.name: [] for spec in FACETS}
    term_facets = {spec.name for spec in FACETS if spec.is_term}
    terms = columns.terms
    linked = np.bincount(columns.links_of(numbers))
    by_facet: dict[str, list[int]] = defaultdict(list)
    for term_id in np.flatnonzero(linked).tolist():
        facet = terms.facet.get(term_id)
        if facet in term_facets:
            by_facet[facet].append(term_id)
    for facet, term_ids in by_facet.items():
        term_ids.sort(key=lambda t: (-linked[t], terms.name_rank[t]))
        result[facet] = [FacetCount(terms.slug[t], terms.name[t], int(linked[t])) for t in term_ids]
    years, per_year = np.unique(columns.day[numbers] // 10000, return_counts=True)
    accelerators = columns.accelerators[numbers]
    known = accelerators != UNKNOWN
    for spec in FACETS:
        if spec.kind == "year":
            newest_first = zip(years[::-1].tolist(), per_year[::-1].tolist(), strict=True)
            result[spec.name] = [FacetCount(str(y), str(y), n) for y, n in newest_first]
        elif spec.kind == "band":
            bands = []
            for band in SCALE_BANDS:
                inside = known.copy()
                if band.low is not None:
                    inside &= accelerators >= band.low
                if band.high is not None:
                    inside &= accelerators < band.high
                if n := int(inside.sum()):
                    bands.append(FacetCount(band.slug, band.label, n))
            result[spec.name] = bands
    return result
