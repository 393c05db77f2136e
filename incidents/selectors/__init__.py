"""The read layer: every read of the case store that pages, the JSON API and the MCP tools
make goes through here; none of them builds its own queries.

- `facets`: the facet registry (`FACETS`), `CaseFilters` and applying them;
- `params`: `parse_filters` / `parse_search`, the one parser of list parameters;
- `lookup`: `find_case` / `find_topic`, resolving whatever id or slug a caller typed;
- `spelling`: matching typed values to ids and terms, nearest values;
- `cases`: cases, topics, vocabulary counts and statistics.
"""

from .cases import (
    CaseStats,
    TopicOverview,
    case_by_id,
    case_stats,
    redirect_target,
    related_cases,
    resolve_case_id,
    terms_with_counts,
    topic_overview,
    visible_case_ids,
    visible_case_row,
    vocabulary,
)
from .facets import (
    EXCLUDE_PREFIX,
    FACETS,
    FACETS_BY_NAME,
    FACETS_BY_SEGMENT,
    FILTER_FACETS,
    FILTER_PARAMS,
    TERM_FACETS,
    CaseFilters,
    FacetSpec,
    facet_label,
    filter_cases,
)
from .lookup import CaseLookup, TopicLookup, canonical_case_id, closest_terms, find_case, find_topic
from .params import (
    MAX_QUERY_CHARS,
    SORTS,
    Choice,
    Problem,
    SearchParams,
    distinct_case_values,
    parse_filters,
    parse_search,
)

__all__ = [
    "redirect_target",
    "resolve_case_id",
    "visible_case_row",
    "EXCLUDE_PREFIX",
    "FACETS",
    "FACETS_BY_NAME",
    "FACETS_BY_SEGMENT",
    "FILTER_FACETS",
    "FILTER_PARAMS",
    "MAX_QUERY_CHARS",
    "SORTS",
    "TERM_FACETS",
    "CaseFilters",
    "CaseLookup",
    "CaseStats",
    "Choice",
    "FacetSpec",
    "Problem",
    "SearchParams",
    "TopicLookup",
    "TopicOverview",
    "canonical_case_id",
    "case_by_id",
    "case_stats",
    "closest_terms",
    "distinct_case_values",
    "facet_label",
    "filter_cases",
    "find_case",
    "find_topic",
    "parse_filters",
    "parse_search",
    "related_cases",
    "terms_with_counts",
    "topic_overview",
    "visible_case_ids",
    "vocabulary",
]
