"""Output shapes of the MCP tools (pydantic models: each becomes a tool's output schema).

Lists carry `CaseSummary`-based entries, never whole documents: a summary is a few hundred
bytes, so a page at the largest `limit` stays under `MAX_LIST_RESPONSE_BYTES`.
`get_incident` returns the case document itself, whose schema is `case.schema.json`.

Not `models.py`: Django imports an app's `models` module at start-up in every process, and
building these pydantic models there (pydantic itself included) was about a tenth of a
second of every `manage.py` command; the MCP tools import them when they are loaded.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from incidents.document_model import case_model
from incidents.models import VOCAB_FACETS, Facet

if TYPE_CHECKING:
    FacetName = str
else:
    # The facets the `vocab` tool lists: those of /api/vocab/, from the model's registry (all
    # of them when none is asked), then error_code, asked alone: the codes of /api/codes/,
    # whose meanings and patterns (25 KB) would crowd the others out of the budget.
    FacetName = Literal[(*(str(facet) for facet in VOCAB_FACETS), str(Facet.ERROR_CODE))]


class CaseSummary(BaseModel):
    """One case in a list: enough to decide whether to open it with get_incident."""

    id: str = Field(description="Case id, e.g. IL-0428; open it with get_incident.")
    title: str = Field(description="One-sentence headline (at most 300 characters).")
    organization: str
    published: str = Field(description="Date the public account was published, YYYY-MM-DD.")
    topics: list[str] = Field(description="Topic slugs.")
    symptom_tags: list[str] = Field(description="Symptom tag names.")
    root_cause_category: str = Field(description="Root-cause category name.")
    url: str = Field(description="The case as JSON (the API).")
    html_url: str = Field(description="The case's web page.")


class FacetValue(BaseModel):
    value: str = Field(description="What to pass as the filter (slug, name or year).")
    label: str
    count: int = Field(description="Cases in the whole result set with this value.")


class SearchHit(CaseSummary):
    score: float | None = Field(
        description="Relevance, higher is better (1: the case cites the record queried); null when browsing."
    )
    confidence: Literal["strong", "possible", "weak"] | None = Field(
        description="The search engine's label (as the API's); null when not ranked."
    )
    snippet: str | None = Field(
        description="Matching passage, plain text with **bold** around matched words "
        "(at most 300 characters), or null."
    )
    matched_terms: list[str] = Field(
        description="Vocabulary terms the query named or was widened to (why it matched)."
    )
    why: str | None = Field(
        default=None, description="Why it is listed, in words (as the API's); null when browsing."
    )
    # Left out rather than sent as null on the other hits (all but one at most): 12 bytes a
    # hit, 300 at 25 hits.
    like: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="The first hit's id when this partial match is listed first as the case most "
        "like it (placed by that likeness, not by score); absent otherwise.",
    )


class SearchResult(BaseModel):
    total: int = Field(description="Cases matching the query and filters (all pages).")
    hits: list[SearchHit]
    next_cursor: str | None = Field(
        description="Pass as `cursor` (same query and filters) for the next page; null on the last page."
    )
    partial_matches: list[SearchHit] = Field(
        description="After the last page of hits: the closest cases that do not match well "
        "(confidence weak), best first, at most 5 of `partial_count`; not counted in `total` "
        "(as the API's partial_matches)."
    )
    partial_count: int = Field(
        description="Cases that share only some words or a loose resemblance with the query, "
        "listed or not (as the API's partial_count); a filter lists the closest of those it keeps."
    )
    notes: list[str] = Field(description="Remarks on the query, e.g. that it had only stop words.")
    facets: dict[str, list[FacetValue]] | None = Field(
        default=None, description="Top values per facet over all matches (when facets=true)."
    )
    truncated: bool = Field(default=False, description="True when cut to the byte budget.")


class IncidentList(BaseModel):
    total: int = Field(description="Cases matching the filters (all pages).")
    incidents: list[CaseSummary]
    next_cursor: str | None = Field(
        description="Pass as `cursor` (same filters and sort) for the next page; null on the last page."
    )
    facets: dict[str, list[FacetValue]] | None = Field(
        default=None, description="Top values per facet over all matches (when facets=true)."
    )
    notes: list[str] = Field(default_factory=list)  # a filter read otherwise (topic=training)
    truncated: bool = Field(default=False, description="True when cut to the byte budget.")


class TermCount(BaseModel):
    slug: str
    name: str
    count: int  # published cases in the topic that carry this term


class TopicOverview(BaseModel):
    slug: str
    name: str
    description: str
    synonyms: list[str]
    case_count: int = Field(description="Published cases in the topic.")
    top_symptoms: list[TermCount]
    top_root_causes: list[TermCount]
    top_components: list[TermCount]
    latest_cases: list[CaseSummary] = Field(description="Newest published cases in the topic.")
    truncated: bool = Field(default=False, description="True when cut to the byte budget.")
    notes: list[str] = Field(default_factory=list, description="How to get what was cut.")


class VocabTerm(BaseModel):
    slug: str = Field(description="Pass this as the filter value.")
    name: str
    description: str
    synonyms: list[str]
    case_count: int = Field(description="Published cases that carry the term.")
    # Left out of other facets' terms rather than sent as null: the whole vocabulary is
    # read in one call, and 100-odd nulls would cost 3 KB.
    vendor: str | None = Field(
        default=None, exclude_if=lambda v: v is None, description="Accelerators and error codes."
    )
    family: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="Accelerators: the family slug.",
    )
    source_url: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="Error codes: the vendor documentation the description is written from.",
    )
    patterns: list[str] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="Error codes: RE2 patterns (case ignored) that find the code in text.",
    )


class Vocabulary(BaseModel):
    # Keyed by plain strings: the facet names are the input's `facet` values, listed there once.
    terms: dict[str, list[VocabTerm]] = Field(
        description="Terms by facet, each list sorted by name (error codes by vendor, then name, "
        "as /api/codes/). The facet name is the filter parameter of search_incidents and "
        "list_incidents."
    )
    truncated: bool = Field(default=False, description="True when cut to the byte budget.")
    notes: list[str] = Field(default_factory=list, description="How to get what was cut.")


class CaseRef(BaseModel):
    id: str
    title: str
    url: str
    html_url: str


class SimilarIncident(CaseSummary):
    score: float = Field(description="Similarity 0..1, higher is closer.")
    similarity: str = Field(description='"very similar", "similar" or "related".')
    reasons: list[str] = Field(description='Why, in words, e.g. ["Both: Xid 79, NCCL"].')
    shared_terms: dict[str, list[str]] = Field(
        description="Why: vocabulary shared with the case, by facet (term names)."
    )


class SimilarIncidents(BaseModel):
    id: str = Field(description="The case the others are similar to.")
    title: str
    similar: list[SimilarIncident] = Field(description="Computed neighbours, closest first.")
    related: list[CaseRef] = Field(description="Cases the editors linked by hand (kept apart).")
    truncated: bool = Field(default=False, description="True when cut to the byte budget.")
    notes: list[str] = Field(default_factory=list, description="A merged id's notice; what was cut.")


class LogLine(BaseModel):
    line_number: int = Field(description="1-based line number in the text sent.")
    line: str = Field(description="The line, at most 300 characters.")


class MatchedLine(BaseModel):
    line_number: int = Field(description="1-based line number; its text is in `lines`.")
    terms: list[str] = Field(
        description="The failure signatures (vocabulary terms or error tokens) found in it."
    )
    occurrences: int = Field(
        default=1,
        description="Lines it stands for: itself and repeats differing only in digits.",
    )


class LogMatch(CaseSummary):
    score: float = Field(description="Higher is a better match.")
    confidence: Literal["strong", "possible", "weak"] = Field(description="How sure the match is.")
    why: str = Field(description="Why it is listed: the signatures it shares, by line.")
    like: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="The first hit's id when listed higher as a case like it; absent otherwise.",
    )
    matched_lines: list[MatchedLine] = Field(
        description="At most 5 distinct lines, in the order the search module ranks them."
    )
    more_matched_lines: int = Field(description="Distinct matched lines left out.")


class LogMatchResult(BaseModel):
    lines_read: int
    lines: list[LogLine] = Field(description="Each matched line once, by line number.")
    hits: list[LogMatch]
    error_codes: list[str] = Field(
        description="Names of the error codes the log shows (by their patterns): explain_error "
        "explains one, the error_code filter takes it."
    )
    notes: list[str]
    truncated: bool = Field(default=False, description="True when cut to the byte budget.")


@cache
def incident_document_schema() -> dict[str, Any]:
    """`case.schema.json` as get_incident's output schema: only `id` is required, since
    `fields` may leave the others out."""
    schema = copy.deepcopy(case_model().standalone_schema)
    schema["required"] = ["id"]
    # The fields are typed and described in case.schema.json (the API serves it, and the
    # case document's schema in GET /api/schema/); the tool list, read into an assistant's
    # context every session, names them only.
    schema["properties"] = dict.fromkeys([*schema["properties"], *DOCUMENT_EXTRAS], {})
    return schema


# What get_incident adds to the case document: the same links as the API's detail, and the
# marker of a document cut to the byte budget.
DOCUMENT_EXTRAS = ("url", "html_url", "truncated", "omitted_fields", "notice")


class IncidentDocument(BaseModel):
    """A case document (`case.schema.json`), possibly trimmed to some fields.

    Validates loosely (the document comes from `case_document`, already schema-shaped) and
    publishes the case schema itself, so the tool's output schema never drifts from it.
    """

    model_config = ConfigDict(extra="allow")

    id: str

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return copy.deepcopy(incident_document_schema())


class VocabularyCut(BaseModel):
    """The vocabulary flattened to (facet, term) pairs, to cut it at a term boundary."""

    pairs: list[tuple[Any, VocabTerm]]
    truncated: bool = False


class TriageWhy(BaseModel):
    text: str
    matched_terms: list[str]
    line_numbers: list[int]
    context: list[str]


class TriageRootCause(BaseModel):
    category: str
    description: str | None


class TriageCase(BaseModel):
    id: str
    title: str
    confidence: Literal["strong", "possible", "weak"]
    why: TriageWhy
    # As a search hit's `like`, left out when null; described by the search hit's (the list's
    # budget, `test_the_tool_list_stays_under_16_kb`).
    like: str | None = Field(default=None, exclude_if=lambda v: v is None)
    root_cause: TriageRootCause
    fix: list[str]
    checks: list[str]
    sources: list[str]
    url: str
    html_url: str


class TriageResult(BaseModel):
    known: bool
    cases: list[TriageCase]
    log_lines: list[LogLine]
    lines_read: int
    notes: list[str]
    truncated: bool = False


class CodeExplanation(BaseModel):
    """One error code: meaning, source, what its cases turned out to be."""

    slug: str
    name: str
    vendor: str
    meaning: str
    source_url: str
    case_count: int
    root_causes: list[str]
    checks: list[str]
    cases: list[CaseRef]
    html_url: str


class ErrorExplanation(BaseModel):
    codes: list[CodeExplanation]
    notes: list[str]
    truncated: bool = False


class AffectedCase(BaseModel):
    """One case range holding a version sent to am_i_affected."""

    id: str
    title: str
    component: str
    version: str
    range: dict[str, Any]
    why: str
    fixed: str | None
    workaround: str | None
    url: str
    html_url: str


class AffectedResult(BaseModel):
    checked: dict[str, str]
    affected: list[AffectedCase]
    unknown: list[AffectedCase]
    notes: list[str]
    truncated: bool = False
