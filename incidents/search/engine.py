"""Case search: query text plus facet filters, ranked hits, facet counts.

First version: case-insensitive containment over title, summary and symptoms; the ranked
full-text backends replace `_matching` without changing `search_cases`.
"""

from __future__ import annotations

from typing import Literal

from django.db.models import Q

from incidents.models import Case
from incidents.selectors import CaseFilters, filter_cases

from .facets import facet_counts
from .results import SearchHit, SearchResults

Sort = Literal["relevance", "newest", "oldest"]


def _matching(query: str):
    condition = Q()
    for word in query.split():
        condition &= (Q(title__icontains=word) | Q(summary__icontains=word)
                      | Q(symptoms_description__icontains=word))
    return Case.objects.published().filter(condition)


def search_cases(
    *, query: str = "", filters: CaseFilters | None = None, sort: Sort = "relevance",
    offset: int = 0, limit: int = 20,
) -> SearchResults:
    """Published cases matching `query` (all when blank) and `filters`.

    Returns `limit` hits from `offset`, the total, and facet counts over the whole result.
    Without a query, `relevance` means newest first.
    """
    query = query.replace("\x00", " ").strip()
    cases = _matching(query) if query else Case.objects.published()
    cases = filter_cases(cases, filters)
    ordered = cases.order_by("published", "id") if sort == "oldest" else cases.newest_first()
    page = list(ordered.with_summary()[offset:offset + limit])
    return SearchResults(
        hits=[SearchHit(case=c, score=None, snippet=None) for c in page],
        total=cases.count(),
        facets=facet_counts(cases),
    )
