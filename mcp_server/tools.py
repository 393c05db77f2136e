"""The incident tools. Each parses its arguments, calls `incidents.selectors`,
`incidents.documents.case_document` or `incidents.search`, and shapes the output; none
holds query logic. Docstrings are the descriptions clients show to the model.

Size bound: list entries are summaries (about 0.5 KB each, never whole documents), so a
response at the largest `limit` stays under `MAX_LIST_RESPONSE_BYTES` (40 KB) of JSON;
at the default limits under about 12 KB. Only get_incident returns a whole document.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from incidents import search, selectors
from incidents.documents import case_document
from incidents.models import Case
from incidents.selectors import MAX_QUERY_CHARS, CaseLookup, find_case, find_topic

from .cursors import decode_cursor, encode_cursor, query_key
from .filters import (
    Accelerator,
    Component,
    Exclude,
    Organization,
    PublishedAfter,
    PublishedBefore,
    RootCause,
    Symptom,
    Topic,
    Year,
    build_filters,
    filter_arguments,
)
from .models import (
    CaseRef,
    IncidentDocument,
    IncidentList,
    LogMatch,
    LogMatchResult,
    SearchHit,
    SearchResult,
    SimilarIncident,
    SimilarIncidents,
    TermCount,
    TopicOverview,
    VocabTerm,
    Vocabulary,
)
from .shaping import (
    case_summary,
    facet_values,
    group_matched_lines,
    snippet_text,
    summary_fields,
)

MAX_LIST_RESPONSE_BYTES = 40_000
MATCHED_LINES_PER_HIT = 5

DocumentField = Literal[
    "id",
    "title",
    "organization",
    "published",
    "occurred",
    "status",
    "topics",
    "summary",
    "facts",
    "environment",
    "symptoms",
    "scale_tables",
    "root_cause",
    "detection",
    "remediation",
    "action_items",
    "lessons",
    "checks",
    "sources",
    "related",
]
CaseId = Annotated[
    str, Field(min_length=1, max_length=40, description="Case id, e.g. IL-0428 (il-0428 or 428 work too).")
]
Cursor = Annotated[
    str | None,
    Field(max_length=200, description="next_cursor from the previous call with the same arguments."),
]
WithFacets = Annotated[
    bool, Field(description="Also return the top values of each facet over all matches (adds 2-4 KB).")
]


def _case_or_error(raw_id: str) -> Case:
    """The published or retracted case `raw_id` names (`selectors.find_case`; the kept case
    for an id merged into another), or a ToolError naming the closest ids."""
    case = _lookup_or_error(raw_id).case
    assert case is not None  # _lookup_or_error raises otherwise
    return case


def _lookup_or_error(raw_id: str) -> CaseLookup:
    """`find_case(raw_id, follow=True)` with a case, or a ToolError naming the closest ids."""
    lookup = find_case(raw_id, follow=True)
    if lookup.case is not None:
        return lookup
    closest = lookup.closest
    if not closest:
        raise ToolError(f"No incident {raw_id!r}: no incidents are stored yet.")
    raise ToolError(
        f"No incident {raw_id!r}. Closest ids: {', '.join(closest)}. "
        "To find incidents by what happened, use search_incidents."
    )


def search_incidents(
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            description="What happened, in words or as error text, e.g. 'allreduce hangs after "
            "adding nodes', 'Xid 79', 'NCCL_IB_TIMEOUT'. Quotes, -word and OR work.",
        ),
    ],
    topic: Topic = None,
    symptom: Symptom = None,
    root_cause: RootCause = None,
    component: Component = None,
    organization: Organization = None,
    accelerator: Accelerator = None,
    year: Year = None,
    exclude: Exclude = None,
    published_after: PublishedAfter = None,
    published_before: PublishedBefore = None,
    limit: Annotated[int, Field(ge=1, le=25, description="Hits per page, 1-25.")] = 10,
    cursor: Cursor = None,
    facets: WithFacets = False,
) -> SearchResult:
    """Search the incident cases: ranked hits for a description of a failure.

    Returns `total` (all matches), up to `limit` hits, best first, each with id, title,
    organization, published date, topics, symptom tags, root-cause category, a relevance
    `score`, a plain-text `snippet` (matched words in **bold**, at most 300 characters)
    and `matched_terms` (why it matched), plus `next_cursor` for the next page and `notes`
    about the query. Filters narrow the matches (AND across filters); term filters take a
    slug, name or synonym (see vocab). To browse without words use list_incidents; to
    match pasted log lines use match_log; to read a hit use get_incident.

    Size: about 0.6 KB per hit, at most 40 KB at limit=25.
    Errors: an unknown filter value names the nearest valid values; limit outside 1-25 and
    a cursor from a different query are refused.
    """
    filters = build_filters(
        topic=topic,
        symptom=symptom,
        root_cause=root_cause,
        component=component,
        organization=organization,
        accelerator=accelerator,
        year=year,
        exclude=exclude,
        published_after=published_after,
        published_before=published_before,
    )
    key = query_key(tool="search", query=query.strip(), filters=filter_arguments(filters))
    offset = decode_cursor(cursor, key)
    results = search.search_cases(query=query, filters=filters, sort="relevance", offset=offset, limit=limit)
    hits = [
        SearchHit(
            **summary_fields(hit.case),
            score=round(hit.score, 4) if hit.score is not None else None,
            snippet=snippet_text(hit.snippet),
            matched_terms=list(hit.matched_terms),
        )
        for hit in results.hits
    ]
    notes = list(results.notes)
    if results.total == 0:
        notes.append(
            "Nothing matched: try fewer or other words (vocab lists synonyms)"
            + (", or drop a filter." if filters.include or filters.exclude else ".")
        )
    end = offset + len(hits)
    return SearchResult(
        total=results.total,
        hits=hits,
        next_cursor=encode_cursor(end, key) if hits and end < results.total else None,
        notes=notes,
        facets=facet_values(results.facets) if facets else None,
    )


def list_incidents(
    topic: Topic = None,
    symptom: Symptom = None,
    root_cause: RootCause = None,
    component: Component = None,
    organization: Organization = None,
    accelerator: Accelerator = None,
    year: Year = None,
    exclude: Exclude = None,
    published_after: PublishedAfter = None,
    published_before: PublishedBefore = None,
    sort: Annotated[Literal["newest", "oldest"], Field(description="Order by publication date.")] = "newest",
    limit: Annotated[int, Field(ge=1, le=50, description="Cases per page, 1-50.")] = 20,
    cursor: Cursor = None,
    facets: WithFacets = False,
) -> IncidentList:
    """Browse the published incident cases, newest first, optionally filtered.

    Returns `total` (all cases matching the filters), up to `limit` case summaries (id,
    title, organization, published date, topics, symptom tags, root-cause category) and
    `next_cursor` for the next page. Filters combine with AND; term filters take a slug,
    name or synonym (see vocab). To search by words use search_incidents.

    Size: about 0.5 KB per case, at most 40 KB at limit=50.
    Errors: an unknown filter value names the nearest valid values; limit outside 1-50 and
    a cursor from different filters are refused.
    """
    filters = build_filters(
        topic=topic,
        symptom=symptom,
        root_cause=root_cause,
        component=component,
        organization=organization,
        accelerator=accelerator,
        year=year,
        exclude=exclude,
        published_after=published_after,
        published_before=published_before,
    )
    key = query_key(tool="list", sort=sort, filters=filter_arguments(filters))
    offset = decode_cursor(cursor, key)
    results = search.search_cases(query="", filters=filters, sort=sort, offset=offset, limit=limit)
    incidents = [case_summary(hit.case) for hit in results.hits]
    end = offset + len(incidents)
    return IncidentList(
        total=results.total,
        incidents=incidents,
        next_cursor=encode_cursor(end, key) if incidents and end < results.total else None,
        facets=facet_values(results.facets) if facets else None,
    )


def get_incident(
    id: CaseId,  # noqa: A002 - the name clients expect
    fields: Annotated[
        list[DocumentField] | None,
        Field(
            min_length=1,
            description="Only these top-level fields (id is always included), e.g. "
            "['summary', 'root_cause', 'remediation'] to save context.",
        ),
    ] = None,
) -> IncidentDocument:
    """Read one incident case: the whole case document, or the fields asked for.

    Returns the document of `case.schema.json`, the same as GET /api/cases/{id} and the
    exported JSON: title, organization, published, occurred, status (a retracted case still
    resolves, marked "retracted"), topics, summary (Markdown), facts (severity, scope,
    users affected, region, time to detect / resolve as ISO 8601 durations), environment
    (cluster, accelerator, counts, components), symptoms (description, tags), scale_tables
    (which configurations worked or failed), root_cause (category, description, trigger),
    detection, remediation, action_items, lessons, checks, sources (public URLs) and
    related (hand-linked case ids). Unknown facts are null.

    An id merged into another case returns the kept case, with `notice` saying so.

    Size: a whole document is typically 4-10 KB; pass `fields` to read less.
    Errors: an unknown id names the closest existing ids.
    """
    lookup = _lookup_or_error(id)
    case = lookup.case
    assert case is not None
    document = dict(case_document(case))
    if fields:
        wanted = {"id", *fields}
        document = {key: value for key, value in document.items() if key in wanted}
    if lookup.merged_from:
        gone = lookup.merged_from
        document["notice"] = f"{gone} was merged into {case.id} as a duplicate; this is {case.id}."
    if case.status == Case.Status.RETRACTED and case.retraction_reason:
        document["notice"] = f"Retracted: {case.retraction_reason}"
    return IncidentDocument.model_validate(document)


def get_topic(
    slug: Annotated[
        str,
        Field(
            min_length=1,
            max_length=120,
            description="Topic slug or name, e.g. training, networking, storage (see vocab).",
        ),
    ],
    latest: Annotated[int, Field(ge=1, le=20, description="Latest cases to list, 1-20.")] = 5,
) -> TopicOverview:
    """Overview of one topic: what it covers and what its incidents have in common.

    Returns the topic's slug, name, description and synonyms, the number of published
    cases, its most frequent symptom tags, root-cause categories and components (with
    case counts, at most 5 each) and its `latest` newest cases as summaries.

    Size: about 1 KB plus 0.5 KB per latest case.
    Errors: an unknown topic lists the valid topics.
    """
    lookup = find_topic(slug)
    if lookup.term is None:
        listing = ", ".join(f"{t.slug} ({t.name})" for t in lookup.topics)
        raise ToolError(f"Unknown topic {slug!r}. Valid topics: {listing}.")
    overview = selectors.topic_overview(lookup.term, latest=latest)
    assert overview is not None

    def counts(pairs: list) -> list[TermCount]:
        return [TermCount(slug=t.slug, name=t.name, count=n) for t, n in pairs]

    topic = overview.topic
    return TopicOverview(
        slug=topic.slug,
        name=topic.name,
        description=topic.description,
        synonyms=list(topic.synonyms),
        case_count=overview.case_count,
        top_symptoms=counts(overview.top_symptoms),
        top_root_causes=counts(overview.top_root_causes),
        top_components=counts(overview.top_components),
        latest_cases=[case_summary(case) for case in overview.latest_cases],
    )


def vocab(
    facet: Annotated[
        Literal["topic", "symptom", "root_cause", "component"] | None,
        Field(description="One facet, or leave out for all four."),
    ] = None,
) -> Vocabulary:
    """The vocabulary: the terms an assistant may use as filter values.

    Returns, per facet (topic, symptom, root_cause, component: the filter parameters of
    search_incidents and list_incidents), every term with its slug (the filter value),
    name, one-line description, synonyms (search widens to them) and the number of
    published cases that carry it.

    Size: about 16 KB for all facets (it grows with the vocabulary), 1-6 KB for one.
    """
    grouped: dict[Any, list[VocabTerm]] = {}
    for term in selectors.vocabulary(facet):
        grouped.setdefault(term.facet, []).append(
            VocabTerm(
                slug=term.slug,
                name=term.name,
                description=term.description,
                synonyms=list(term.synonyms),
                case_count=term.case_count,
            )
        )
    return Vocabulary(terms=grouped)


def similar_incidents(
    id: CaseId,  # noqa: A002 - the name clients expect
    limit: Annotated[int, Field(ge=1, le=20, description="Similar cases to return, 1-20.")] = 5,
) -> SimilarIncidents:
    """Cases similar to one case, with the reasons they are similar.

    Returns the case's id and title; `similar`: up to `limit` computed neighbours, closest
    first, each a summary with a 0..1 `score`, `shared_terms` (the symptoms, root cause,
    components and topics both cases carry) and `score_parts` (how the score is made up);
    and `related`: the cases editors linked by hand (id and title), kept apart.

    Size: about 0.7 KB per similar case, at most 15 KB at limit=20.
    Errors: an unknown id names the closest existing ids.
    """
    case = _case_or_error(id)
    similar = [
        SimilarIncident(
            **summary_fields(item.case),
            score=round(item.score, 4),
            shared_terms=item.shared_terms,
            score_parts={k: round(v, 4) for k, v in item.score_parts.items()},
        )
        for item in search.similar_cases(case, limit=limit)
    ]
    related = [CaseRef(id=c.id, title=c.title) for c in selectors.related_cases(case)]
    return SimilarIncidents(id=case.id, title=case.title, similar=similar, related=related)


def match_log(
    text: Annotated[
        str,
        Field(
            min_length=1,
            max_length=1_000_000,
            description="Pasted log text: a traceback, NCCL or kernel log, dmesg, Slurm output "
            "(up to 1,000,000 characters).",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=20, description="Cases to return, 1-20.")] = 5,
) -> LogMatchResult:
    """Match pasted log text against known failure signatures and rank the cases.

    Returns `lines_scanned` and up to `limit` cases, best first, each a summary with a
    `score` and `matched_lines` (line number, the line trimmed to 300 characters, and the
    failure signatures found in it; at most 5 lines per case, `more_matched_lines` counts
    the rest), plus `notes`. Paste the lines around the failure rather than a whole log when
    you can: every byte sent costs context.

    Size: about 2 KB per case, at most 40 KB at limit=20.
    Errors: empty text or more than 1,000,000 characters is refused.
    """
    hits = search.match_log(text, limit=limit)
    matches = []
    for hit in hits:
        lines = group_matched_lines(hit.matched_lines)
        matches.append(
            LogMatch(
                **summary_fields(hit.case),
                score=round(hit.score, 4),
                matched_lines=lines[:MATCHED_LINES_PER_HIT],
                more_matched_lines=max(0, len(lines) - MATCHED_LINES_PER_HIT),
            )
        )
    notes = (
        [] if matches else ["No known failure signature found: try search_incidents with the error message."]
    )
    return LogMatchResult(lines_scanned=len(text.splitlines()), hits=matches, notes=notes)


TOOLS = (
    (search_incidents, "Search incidents"),
    (get_incident, "Get an incident"),
    (list_incidents, "List incidents"),
    (get_topic, "Get a topic"),
    (vocab, "Vocabulary of filter values"),
    (similar_incidents, "Similar incidents"),
    (match_log, "Match a log against incidents"),
)
