"""The incident tools. Each parses its arguments, calls `incidents.selectors`,
`incidents.documents.case_document` or `incidents.search`, and shapes the output; none
holds query logic. Docstrings are the descriptions clients show to the model: what the tool
is for, when to use another one, an example, the byte budget and the errors.

Budgets: every result is cut at an item boundary to its tool's budget (`BUDGETS`, bytes of
compact JSON), says `truncated: true` and how to get the rest. Lists hold summaries, never
whole documents; only get_incident returns a document.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.conf import settings
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from incidents import limits, search, selectors
from incidents.codes import error_code_fields
from incidents.models import Case, Facet
from incidents.selectors import MAX_QUERY_CHARS, CaseLookup, case_record, find_topic, record_of
from incidents.selectors.spelling import MAX_CASE_ID_CHARS, looks_like_case_id

from .affected_tool import AFFECTED_BUDGET, am_i_affected
from .budget import fit_fields, fit_list, json_size
from .cursors import decode_cursor, encode_cursor, query_key
from .field_names import DOCUMENT_FIELDS, FieldNames
from .filters import (
    Accelerator,
    Component,
    Count,
    ErrorCode,
    Exclude,
    Organization,
    PublishedAfter,
    PublishedBefore,
    RootCause,
    Scale,
    Symptom,
    Term,
    Topic,
    Workload,
    Year,
    YearNumber,
    build_filters,
    filter_arguments,
    problem_message,
    read_query,
)
from .links import case_links
from .lookup import case_notice, find_case_id, no_topic_message
from .outputs import (
    CaseRef,
    CodeExplanation,
    ErrorExplanation,
    FacetName,
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
    VocabularyCut,
)
from .shaping import (
    case_summary,
    facet_values,
    log_lines,
    matched_lines,
    snippet_text,
    summary_fields,
)
from .toolkit import ToolSpec
from .triage_tool import TRIAGE_BUDGET, triage

MAX_LIST_RESPONSE_BYTES = 40_000  # no result is larger, whatever the tool (see BUDGETS)
MATCHED_LINES_PER_HIT = 5
BUDGETS = {
    "search_incidents": 24_000,
    "list_incidents": 24_000,
    "get_incident": 16_000,
    "get_topic": 12_000,
    # Seven facets since organizations, accelerators and workloads joined (issue 13): about
    # 30 KB whole.
    "vocab": 36_000,
    "similar_incidents": 16_000,
    "match_log": 16_000,
    "triage": TRIAGE_BUDGET,
    "explain_error": 8_000,
    "am_i_affected": AFFECTED_BUDGET,
}

CaseId = Annotated[
    str,
    Field(min_length=1, max_length=MAX_CASE_ID_CHARS, description="Case id, e.g. IL-0428 (or 428)."),
]
Cursor = Annotated[
    str | None,
    Field(max_length=200, description="Last call's next_cursor; same arguments."),
]
WithFacets = Annotated[bool, Field(description="Top values per facet (2-4 KB).")]


def _case_or_error(raw_id: str) -> Case:
    """The published or retracted case `raw_id` names (`selectors.find_case`; the kept case
    for an id merged into another), or a ToolError naming the closest ids."""
    case = _lookup_or_error(raw_id).case
    assert case is not None  # _lookup_or_error raises otherwise
    return case


def _lookup_or_error(raw_id: str) -> CaseLookup:
    """`find_case_id(raw_id)` with a case, or a ToolError naming the closest ids."""
    lookup = find_case_id(raw_id)
    if lookup.case is not None:
        return lookup
    closest = lookup.closest
    if not looks_like_case_id(raw_id):  # no id is near words: naming any would mislead
        raise ToolError(
            f"No incident {raw_id!r}: ids look like IL-0428. "
            "To find incidents by what happened, use search_incidents."
        )
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
            # Stated for clients, checked by `read_query`: the parser the page and the API
            # use, so the three say the same of a query too long.
            json_schema_extra={"maxLength": MAX_QUERY_CHARS},
            description="Words or error text, e.g. 'Xid 79'; quotes, -word, OR work.",
        ),
    ],
    topic: Topic = None,
    symptom: Symptom = None,
    root_cause: RootCause = None,
    component: Component = None,
    error_code: ErrorCode = None,
    organization: Organization = None,
    accelerator: Accelerator = None,
    year: Year = None,
    exclude: Exclude = None,
    published_after: PublishedAfter = None,
    published_before: PublishedBefore = None,
    workload: Workload = None,
    scale: Scale = None,
    min_accelerators: Count = None,
    max_accelerators: Count = None,
    min_nodes: Count = None,
    max_nodes: Count = None,
    limit: Annotated[int, Field(ge=1, le=limits.MCP_SEARCH)] = 10,
    cursor: Cursor = None,
    facets: WithFacets = False,
) -> SearchResult:
    """Cases ranked by words or error text, then weak partial_matches: the closest 5 of
    partial_count, last page only (a filter lists the closest of those it keeps).

    Use for "have we seen this?" in words or an upstream id (NVIDIA/nccl#1116); filters
    AND, a list ORs (values: vocab; bounds inclusive). Not for: a failure to fix (triage),
    logs (match_log). Example: {"query": "allreduce hangs", "symptom": "nccl-timeout"}.
    Size: 0.7 KB a hit; budget 24 KB, then cut (`truncated`, next_cursor).
    """
    query = read_query(query)
    if selectors.is_blank(query):
        # `""` is refused by the schema (minLength); spaces alone would browse every case, which
        # is list_incidents' work, under a tool whose answer says how well each case matched.
        raise ToolError(
            f"Invalid arguments: query {selectors.empty_detail(query)}; "
            "list_incidents lists cases without one."
        )
    filters = build_filters(
        topic=topic,
        symptom=symptom,
        root_cause=root_cause,
        component=component,
        error_code=error_code,
        organization=organization,
        accelerator=accelerator,
        year=year,
        exclude=exclude,
        published_after=published_after,
        published_before=published_before,
        workload=workload,
        scale=scale,
        min_accelerators=min_accelerators,
        max_accelerators=max_accelerators,
        min_nodes=min_nodes,
        max_nodes=max_nodes,
    )
    key = query_key(tool="search", query=query.strip(), filters=filter_arguments(filters))
    offset = decode_cursor(cursor, key)
    results = search.search_cases(
        query=query, filters=filters, sort="relevance", offset=offset, limit=limit, facets=facets
    )
    hits = [_search_hit(hit) for hit in results.hits]
    # What the page and the API list after the last page of matches (the engine's notes say
    # "the closest cases are listed as partial matches"): an assistant sees them too.
    partial = [_search_hit(hit) for hit in results.partial_hits]
    notes = list(results.notes)
    # Else a note names the retracted cases, or says no case cites the record and where on.
    if results.total == 0 and not results.retracted_matches and not results.uncited:
        notes.append(
            ("Nothing matched well" if partial else "Nothing matched")
            + ": try fewer or other words (vocab lists synonyms)"
            + (", or drop a filter." if filters.include or filters.exclude else ".")
        )
    end = offset + len(hits)
    result = SearchResult(
        total=results.total,
        hits=hits,
        next_cursor=encode_cursor(end, key) if hits and end < results.total else None,
        partial_matches=partial,
        partial_count=results.partial_total,
        notes=notes,
        facets=facet_values(results.facets) if facets else None,
    )
    # Cut at a hit: the partial matches follow the last page of matches, so a cut page leaves
    # them to the page its cursor gives.
    return fit_list(
        result,
        "hits",
        BUDGETS["search_incidents"],
        lambda kept: {"next_cursor": encode_cursor(offset + kept, key), "partial_matches": []},
    )


def _search_hit(hit: search.SearchHit) -> SearchHit:
    return SearchHit(
        **summary_fields(hit.case),
        score=round(hit.score, 4) if hit.score is not None else None,
        confidence=hit.confidence,  # the engine's calibrated label: weak for a partial match
        snippet=snippet_text(hit.snippet),
        matched_terms=list(hit.matched_terms),
        why=hit.why,
        like=hit.like,
    )


def list_incidents(
    topic: Term = None,
    symptom: Term = None,
    root_cause: Term = None,
    component: Term = None,
    error_code: Term = None,
    organization: Organization = None,
    accelerator: Term = None,
    year: YearNumber = None,
    exclude: Exclude = None,
    published_after: PublishedAfter = None,
    published_before: PublishedBefore = None,
    workload: Workload = None,
    scale: Scale = None,
    min_accelerators: Count = None,
    max_accelerators: Count = None,
    min_nodes: Count = None,
    max_nodes: Count = None,
    sort: Literal["newest", "oldest"] = "newest",  # by publication date, as the docstring says
    limit: Annotated[int, Field(ge=1, le=limits.MCP_LIST)] = 20,
    cursor: Cursor = None,
    facets: WithFacets = False,
) -> IncidentList:
    """Browse published cases by date; filters as search_incidents.

    Use to list cases by topic, symptom, scale. Not for: a failure (triage).
    Example: {"workload": "training", "min_accelerators": 1024}.
    Size: 0.6 KB a case; budget 24 KB, then cut (`truncated`, next_cursor).
    """
    filters = build_filters(
        topic=topic,
        symptom=symptom,
        root_cause=root_cause,
        component=component,
        error_code=error_code,
        organization=organization,
        accelerator=accelerator,
        year=year,
        exclude=exclude,
        published_after=published_after,
        published_before=published_before,
        workload=workload,
        scale=scale,
        min_accelerators=min_accelerators,
        max_accelerators=max_accelerators,
        min_nodes=min_nodes,
        max_nodes=max_nodes,
    )
    key = query_key(tool="list", sort=sort, filters=filter_arguments(filters))
    offset = decode_cursor(cursor, key)
    results = search.search_cases(
        query="", filters=filters, sort=sort, offset=offset, limit=limit, facets=facets
    )
    incidents = [case_summary(hit.case) for hit in results.hits]
    end = offset + len(incidents)
    result = IncidentList(
        total=results.total,
        incidents=incidents,
        next_cursor=encode_cursor(end, key) if incidents and end < results.total else None,
        facets=facet_values(results.facets) if facets else None,
        notes=list(results.notes),
    )
    return fit_list(
        result,
        "incidents",
        BUDGETS["list_incidents"],
        lambda kept: {"next_cursor": encode_cursor(offset + kept, key)},
    )


def get_incident(
    id: CaseId,  # noqa: A002 - the name clients expect
    fields: FieldNames = None,
) -> IncidentDocument:
    """One case document (as GET /api/cases/{id}) or the `fields` asked; TTD/TTR are ISO
    8601 durations.

    Use to read a case. Not for: finding cases. Example: {"id": "IL-0428", "fields":
    ["root_cause", "checks"]}.
    Size: 4-10 KB; budget 16 KB, then last fields go (`truncated`, `omitted_fields`).
    A merged id: the kept case, with a `notice`.
    """
    wanted_fields, problems = selectors.parse_field_list(fields, DOCUMENT_FIELDS)
    if problems:
        raise ToolError(" ".join(problem_message(p) for p in problems))
    record, merged_from = case_record(id), None
    if record is None:
        lookup = _lookup_or_error(id)
        assert lookup.case is not None
        record, merged_from = record_of(lookup.case), lookup.merged_from
    document = {**record.document, **case_links(record.id)}
    if wanted_fields is not None:
        wanted = {"id", "url", "html_url", *wanted_fields}  # a trimmed case keeps its links
        if record.retracted:
            wanted.add("status")  # and a retracted one says so, as the API's does
        document = {key: value for key, value in document.items() if key in wanted}
    # A merged id answers with the kept case, a retracted case with its reason: said in words,
    # as incident:// says them.
    notice = case_notice(record.id, merged_from, record.retraction_reason or "" if record.retracted else None)
    if notice:
        document["notice"] = notice
    document, _ = fit_fields(
        document, BUDGETS["get_incident"], keep=("id", "title", "url", "html_url", "notice")
    )
    return IncidentDocument.model_validate(document)


def get_topic(
    slug: Annotated[
        str,
        Field(
            min_length=1,
            max_length=120,
            description="Topic slug or name, e.g. interconnect (see vocab).",
        ),
    ],
    latest: Annotated[int, Field(ge=1, le=20, description="Latest cases to list.")] = 5,
) -> TopicOverview:
    """A topic: its top symptoms, causes, components, latest cases.

    Use to orient in an area. Not for: a failure (triage). Example: {"slug":
    "interconnect", "latest": 3}.
    Size: 1 KB + 0.6 KB a case; budget 12 KB, then fewer (`truncated`, notes).
    """
    lookup = find_topic(slug)
    if lookup.term is None:
        raise ToolError(no_topic_message(slug, lookup))  # as topic:// says it
    overview = selectors.topic_overview(lookup.term, latest=latest)
    assert overview is not None

    def counts(pairs: list) -> list[TermCount]:
        return [TermCount(slug=t.slug, name=t.name, count=n) for t, n in pairs]

    topic = overview.topic
    result = TopicOverview(
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

    def rest_of_topic(kept: int) -> dict[str, Any]:
        # list_incidents lists a topic newest first, as latest_cases: its cursor goes on from here.
        filters = build_filters(topic=topic.slug)
        key = query_key(tool="list", sort="newest", filters=filter_arguments(filters))
        return {
            "notes": [
                f"Cut to the budget after {kept} cases: call list_incidents with topic="
                f"{topic.slug!r} and cursor={encode_cursor(kept, key)!r} for the rest "
                f"({overview.case_count} in all)."
            ]
        }

    return fit_list(result, "latest_cases", BUDGETS["get_topic"], rest_of_topic)


def vocab(
    facet: Annotated[
        FacetName | None,
        Field(description="One facet, or none for all but error_code."),
    ] = None,
) -> Vocabulary:
    """Each facet's terms, with synonyms and case counts.

    Use to find a filter value. Not for: finding cases. Example: {"facet": "symptom"}.
    Size: 34 KB for all, 0.5-8 KB a facet, error_code 25 KB; budget 36 KB, then cut (`truncated`).
    """
    if facet == Facet.ERROR_CODE:
        return _fit_vocabulary(
            Vocabulary(
                terms={facet: [VocabTerm(**error_code_fields(code)) for code in selectors.error_codes()]}
            )
        )
    grouped: dict[Any, list[VocabTerm]] = {}
    terms = selectors.vocabulary(facet)
    families = {term.id: term.slug for term in terms if term.facet == "accelerator"}
    for term in terms:
        chip = term.facet == "accelerator"
        grouped.setdefault(term.facet, []).append(
            VocabTerm(
                slug=term.slug,
                name=term.name,
                description=term.description,
                synonyms=list(term.synonyms),
                case_count=term.case_count,
                vendor=term.vendor if chip else None,
                family=(families.get(term.family_id, term.slug) if term.family_id else term.slug)
                if chip
                else None,
            )
        )
    return _fit_vocabulary(Vocabulary(terms=grouped))


def _fit_vocabulary(result: Vocabulary) -> Vocabulary:
    """The vocabulary cut to its budget at a term boundary, facet by facet."""
    if json_size(result) <= BUDGETS["vocab"]:
        return result  # measured as sent: the cut's (facet, term) pairs weigh more
    pairs = [(facet, term) for facet, terms in result.terms.items() for term in terms]
    holder = VocabularyCut(pairs=pairs)
    cut = fit_list(holder, "pairs", BUDGETS["vocab"] - 200, lambda kept: {})
    if not cut.truncated:
        return result
    grouped: dict[Any, list[VocabTerm]] = {}
    for facet, term in cut.pairs:
        grouped.setdefault(facet, []).append(term)
    left_out = sorted({facet for facet, _ in pairs[len(cut.pairs) :]})
    return Vocabulary(
        terms=grouped,
        truncated=True,
        notes=[f"Cut to the budget: call vocab with facet= one of {', '.join(left_out)} for the rest."],
    )


def similar_incidents(
    id: CaseId,  # noqa: A002 - the name clients expect
    limit: Annotated[int, Field(ge=1, le=limits.SIMILAR)] = 5,
) -> SimilarIncidents:
    """Cases like one case, closest first, with why; hand-linked apart.

    Use once a case fits. Not for: a first case (triage).
    Example: {"id": "IL-0442"}.
    Size: 0.9 KB a case; budget 16 KB, then fewer (`truncated`).
    """
    lookup = _lookup_or_error(id)
    case = lookup.case
    assert case is not None  # _lookup_or_error raises otherwise
    # Asked by an id merged into another, the answer is the kept case's: said, as get_incident says it.
    notices = (
        [
            f"{lookup.merged_from} was merged into {case.id} as a duplicate; "
            f"these are {case.id}'s similar cases."
        ]
        if lookup.merged_from
        else []
    )
    similar = [
        SimilarIncident(
            **summary_fields(item.case),
            score=round(item.score, 4),
            similarity=item.label,
            reasons=list(item.reasons),
            shared_terms=item.shared_terms,
        )
        for item in search.similar_cases(case, limit=limit, without_hand_linked=True)
    ]
    related = [CaseRef(id=c.id, title=c.title, **case_links(c.id)) for c in selectors.related_cases(case)]
    result = SimilarIncidents(id=case.id, title=case.title, similar=similar, related=related, notes=notices)

    def rest_of_similar(kept: int) -> dict[str, Any]:
        left_out = ", ".join(item.id for item in similar[kept:])
        return {
            "notes": [
                *notices,
                f"Cut to the budget after {kept} cases; left out: {left_out} (get_incident reads "
                f"one; GET {case_links(case.id)['url']}/similar?limit={limit} returns all).",
            ]
        }

    return fit_list(result, "similar", BUDGETS["similar_incidents"], rest_of_similar)


def match_log(
    text: Annotated[
        str,
        Field(
            min_length=1,
            max_length=1_000_000,
            # The bound is the schema's maxLength: said once.
            description="A traceback, NCCL or kernel log, dmesg, Slurm output.",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=limits.MCP_MATCH)] = 5,
) -> LogMatchResult:
    """Cases ranked by failure signatures in a pasted log; `lines`: each matched line once;
    `error_codes`: see explain_error.

    Use for a log alone. Not for: a failure to fix (triage).
    Example: {"text": "Watchdog caught collective operation timeout"}.
    Size: 1 KB a case; budget 16 KB, then fewer (`truncated`).
    """
    if selectors.is_blank(text):
        # A log of blanks is no log: refused as `""` is (by the schema), as the API and the page do.
        raise ToolError(f"Invalid arguments: text {selectors.empty_detail(text)}.")
    reading = search.read_log(text, limit=limit)
    hits = reading.hits
    matches: list[LogMatch] = []
    for hit in hits:
        lines = matched_lines(hit.lines)
        matches.append(
            LogMatch(
                **summary_fields(hit.case),
                score=round(hit.score, 4),
                confidence=hit.confidence,  # the engine's label
                why=hit.why,
                like=hit.like,
                matched_lines=lines[:MATCHED_LINES_PER_HIT],
                more_matched_lines=max(0, len(lines) - MATCHED_LINES_PER_HIT),
            )
        )
    found_codes = [code.term.name for code in reading.error_codes]
    if matches:
        notes = []
    elif found_codes:
        notes = ["No case carries these error codes yet: explain_error says what they mean."]
    elif reading.lines_with_signature:
        notes = ["No case shares the failure signatures found: try search_incidents with the error message."]
    else:
        notes = ["No known failure signature found: try search_incidents with the error message."]
    every_line = [line for hit in hits for line in hit.lines]

    def shown_lines(kept: list[LogMatch]) -> list:
        return log_lines(every_line, {m.line_number for hit in kept for m in hit.matched_lines})

    result = LogMatchResult(
        lines_read=reading.lines_read,  # the engine's count, as POST /api/match and the page give it
        lines=shown_lines(matches),
        hits=matches,
        error_codes=found_codes,
        notes=notes,
    )
    return fit_list(
        result,
        "hits",
        BUDGETS["match_log"],
        lambda kept: {
            "lines": shown_lines(matches[:kept]),
            "notes": [*notes, f"Cut to the budget after {kept} cases: pass a smaller limit or fewer lines."],
        },
    )


CODES_EXPLAINED = 3
CODE_CASES = 5
CODE_CHECKS = 5


def explain_error(
    text: Annotated[str, Field(min_length=1, max_length=20_000, description="An error line or code.")],
) -> ErrorExplanation:
    """An error code's meaning (vendor docs) and its cases' root causes, checks, cases.

    Use when a line names a code (Xid, NCCL, CUDA, IB). Not for: logs (match_log).
    Example: {"text": "Xid 79"}.
    Size: 1-3 KB a code, 3 at most; budget 8 KB.
    """
    found = selectors.codes_in_text(text)
    notes = [] if found else ["No known error code in the text; try match_log or search_incidents."]
    if len(found) > CODES_EXPLAINED:
        notes.append(f"{len(found)} codes found; the first {CODES_EXPLAINED} are explained.")
    codes = []
    for term in found[:CODES_EXPLAINED]:
        detail = selectors.detail_of(term, limit=CODE_CASES, checks_limit=CODE_CHECKS)
        codes.append(
            CodeExplanation(
                slug=term.slug,
                name=term.name,
                vendor=term.vendor or "",
                meaning=term.description,
                source_url=term.source_url or "",
                case_count=detail.case_count,
                root_causes=[f"{row.cause.name}: {row.count} of {row.total}" for row in detail.root_causes],
                checks=[check.text for check in detail.checks],
                cases=[CaseRef(id=c.id, title=c.title, **case_links(c.id)) for c in detail.cases],
                html_url=settings.SITE_URL + term.get_absolute_url(),
            )
        )
    return fit_list(
        ErrorExplanation(codes=codes, notes=notes), "codes", BUDGETS["explain_error"], lambda kept: {}
    )


TOOLS = tuple(
    ToolSpec(fn=fn, title=title, budget=BUDGETS[fn.__name__])
    for fn, title in (
        (triage, "Triage a failure"),
        (search_incidents, "Search incidents"),
        (get_incident, "Get an incident"),
        (list_incidents, "List incidents"),
        (get_topic, "Get a topic"),
        (vocab, "Filter values"),
        (similar_incidents, "Similar incidents"),
        (match_log, "Match a log"),
        (explain_error, "Explain an error code"),
        (am_i_affected, "Am I affected?"),
    )
)
