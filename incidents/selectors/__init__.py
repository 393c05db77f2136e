"""The read layer: every read of the case store that pages, the JSON API and the MCP tools
make goes through here; none of them builds its own queries.

- `facets`: the facet registry (`FACETS`), `CaseFilters` and applying them;
- `params`: `parse_filters` / `parse_search`, the one parser of list parameters;
- `field_lists`: `parse_field_list`, the one parser of `fields` (names to keep);
- `numbers`: `whole_number`, the one rule for an integer given as text (digits 0-9);
- `lookup`: `find_case` / `find_topic` / `find_facet_term`, resolving whatever id or slug a caller typed;
- `spelling`: matching typed values to ids and terms, nearest values;
- `cases`: one case, case lists (pages, feeds, sitemap), the change feed and export;
- `vocabulary`: terms with case counts, a topic's overview, a term's page;
- `summaries`: the one summary shape of a case in a list (API and MCP);
- `stats`: statistics over the published cases;
- `references`: the cases citing an upstream record (alias or URL);
- `affected`: "am I affected?", the cases whose affected ranges include given versions;
- `codes`: the error-code index, one code's cases and root causes, codes in a pasted line;
- `documents`: one case's document by exact id, from the store cache when it is on;
- `version`: the store version behind every `ETag` / `Last-Modified`;
- `pasted_log`: whether the search box's text reads as log lines.
"""

from .affected import (
    AffectedAnswer,
    AffectedMatch,
    affected_cases,
    check_versions,
    component_names,
    is_versions,
    read_version_lines,
    refusing,
    versions_detail,
)
from .case_history import CaseHistory, history_case_exists, history_of, history_spelling
from .cases import (
    case_by_id,
    case_changes,
    cases_with_term,
    feed_cases,
    latest_cases,
    merged_from,
    published_document,
    published_documents,
    related_cases,
    related_to_store,
    resolve_case_id,
    sitemap_cases,
    stored_case_id,
    visible_case_exists,
    visible_case_ids,
    visible_case_modified,
)
from .codes import CauseCount, CodeDetail, code_detail, codes_in_text, detail_of, error_codes, find_code
from .documents import CaseRecord, case_record, record_of
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
from .field_lists import parse_field_list
from .lookup import (
    CaseLookup,
    TermLookup,
    TopicLookup,
    canonical_case_id,
    closest_terms,
    find_case,
    find_facet_term,
    find_published_case,
    find_topic,
)
from .numbers import integer_detail, json_whole_number, number_detail, whole_number, whole_number_wanted
from .params import (
    MAX_QUERY_CHARS,
    SORTS,
    Choice,
    Problem,
    SearchParams,
    distinct_case_values,
    empty_detail,
    is_blank,
    parse_filters,
    parse_search,
    term_value,
)
from .references import (
    NotAReference,
    UpstreamRecord,
    citing_cases_condition,
    cut_at_hash,
    record_lookup,
    reference_condition,
    split_reference_tokens,
)
from .stats import CaseStats, case_stats
from .version import StoreVersion, store_version
from .vocabulary import (
    TermDetail,
    TopicOverview,
    find_term,
    sitemap_terms,
    term_by_slug,
    term_detail,
    terms_with_counts,
    topic_exists,
    topic_overview,
    vocabulary,
)

__all__ = [
    "CaseHistory",
    "history_case_exists",
    "history_of",
    "history_spelling",
    "CaseRecord",
    "case_record",
    "record_of",
    "AffectedAnswer",
    "AffectedMatch",
    "affected_cases",
    "check_versions",
    "read_version_lines",
    "refusing",
    "is_versions",
    "versions_detail",
    "component_names",
    "CauseCount",
    "CodeDetail",
    "code_detail",
    "codes_in_text",
    "detail_of",
    "error_codes",
    "find_code",
    "NotAReference",
    "UpstreamRecord",
    "citing_cases_condition",
    "cut_at_hash",
    "record_lookup",
    "reference_condition",
    "split_reference_tokens",
    "resolve_case_id",
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
    "is_blank",
    "empty_detail",
    "SearchParams",
    "StoreVersion",
    "TermDetail",
    "TermLookup",
    "TopicLookup",
    "TopicOverview",
    "canonical_case_id",
    "case_by_id",
    "merged_from",
    "stored_case_id",
    "case_changes",
    "case_stats",
    "cases_with_term",
    "closest_terms",
    "distinct_case_values",
    "facet_label",
    "feed_cases",
    "filter_cases",
    "find_case",
    "find_facet_term",
    "find_published_case",
    "find_term",
    "find_topic",
    "latest_cases",
    "json_whole_number",
    "number_detail",
    "integer_detail",
    "parse_field_list",
    "parse_filters",
    "parse_search",
    "term_value",
    "published_document",
    "published_documents",
    "related_cases",
    "related_to_store",
    "sitemap_cases",
    "sitemap_terms",
    "store_version",
    "term_by_slug",
    "whole_number",
    "whole_number_wanted",
    "term_detail",
    "terms_with_counts",
    "topic_exists",
    "topic_overview",
    "visible_case_exists",
    "visible_case_ids",
    "visible_case_modified",
    "vocabulary",
]
