"""`/api/cases/`, `/api/cases/{id}`, `/api/cases/{id}/similar`."""

from __future__ import annotations

import json
import re

from django.http import Http404, HttpResponsePermanentRedirect
from django.http.response import HttpResponseBase
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import limits, search, selectors
from incidents.document_model import case_model
from incidents.models import Case
from incidents.selectors import (
    MAX_QUERY_CHARS,
    SORTS,
    CaseFilters,
    find_case,
    parse_search,
)
from incidents.selectors.params import ORDERING_ALIAS, ORDERINGS, SORT_PARAM
from incidents.selectors.spelling import looks_like_case_id

from .. import schema, shapes
from ..errors import ParameterError, UnknownResource
from ..http import ApiView, case_version, conditional_on_store, redirect_to_canonical
from ..params import page_link
from ..query import Date, FacetFilters, FieldList, Flag, Integer, QueryParam, QueryParams
from ..serializers import (
    CaseDetailSerializer,
    CaseListSerializer,
    SearchHitSerializer,
    SimilarListSerializer,
)
from .writes import CaseCreateMixin, CaseUpdateMixin

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = limits.API_PAGE_SIZE  # each door's ceiling and why: incidents/limits.py
MAX_PAGE = limits.PAGE_NUMBER  # the /cases/ page's too
MAX_SIMILAR = limits.SIMILAR


def fields_param(choices: tuple[str, ...], of: str = "") -> FieldList:
    """`fields`, as the case list and the case detail take it: a trimmed answer keeps `id`
    (`shapes.only_fields`)."""
    return FieldList(
        "fields",
        f"Comma-separated fields to return{of} (`id` always comes). Default: all.",
        choices=choices,
    )


# Every field of a hit, as `SearchHitSerializer` describes them: a list of its own left
# `confidence` out, so `fields=confidence` was refused though every hit carries it.
HIT_FIELDS = tuple(SearchHitSerializer().fields)
LIST_QUERY = QueryParams(
    [
        QueryParam(
            "q",
            'Search text: words, "quoted phrases", -excluded '
            f"words, OR; at most {MAX_QUERY_CHARS} characters.",
        ),
        FacetFilters(),
        Date("published_after", "Only cases published on or after this date."),
        Date("published_before", "Only cases published on or before this date."),
        QueryParam(
            SORT_PARAM,
            "`relevance` (default with `q`; newest first without), `newest` "
            "(default without `q`) or `oldest`. The same parameter as the /cases/ page.",
            options=(("enum", list(SORTS)),),
        ),
        QueryParam(
            ORDERING_ALIAS,
            "Earlier name of `sort`, with its earlier values only: `relevance`, `-published` (newest) "
            "or `published` (oldest); not `newest` or `oldest`.",
            options=(("enum", list(ORDERINGS)), ("deprecated", True)),
        ),
        Integer("page", "Page number from 1.", default=1, minimum=1, maximum=MAX_PAGE),
        Integer(
            "page_size",
            "Cases per page, {minimum} to {maximum} (default {default}); more is refused, not clamped.",
            default=DEFAULT_PAGE_SIZE,
            minimum=1,
            maximum=MAX_PAGE_SIZE,
        ),
        fields_param(HIT_FIELDS, " for each case"),
        Flag(
            "facets",
            "`false` leaves `facets` empty: a caller that shows no counts saves counting them.",
            default=True,
        ),
    ]
)
# The detail's top-level fields: the case document's, in schema order (as MCP get_incident's
# `fields`), then those the API adds.
DETAIL_ADDS = tuple(CaseDetailSerializer().fields)
DETAIL_FIELDS = (*case_model().top_level, *DETAIL_ADDS)
DETAIL_QUERY = QueryParams([fields_param(DETAIL_FIELDS)])
SIMILAR_QUERY = QueryParams(
    [
        Integer(
            "limit",
            "Most cases to return, {minimum} to {maximum} (default {default}).",
            default=5,
            minimum=1,
            maximum=MAX_SIMILAR,
        )
    ]
)
CASE_ID = re.compile(schema.CASE_ID_PATTERN)

CASE_ID_PARAMETER = OpenApiParameter(
    "case_id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    pattern=schema.CASE_ID_PATTERN,
    description="Case id such as `IL-0428`; another spelling (`il-0428`, `IL0428`, `il428`, "
    "`428`) redirects (301) to the canonical id.",
)


LOOSE_CASE_ID = re.compile(r"^\s*(?:[Ii][Ll])?[-_ ]?\d{1,6}\s*$")


def check_case_id(case_id: str) -> None:
    """404 for ids that cannot exist (not in an id's shape); other spellings of an id
    (`il428`, `428`) go on to redirect. One with digits (`IL-0427x`) names the closest ids,
    as the case page and MCP do (`selectors.find_case`, 3 queries); one that is not id-like
    (`not-an-id`, or longer than an id can be: `spelling.looks_like_case_id`, the rule of
    every door) is answered without touching the database."""
    if CASE_ID.match(case_id) or LOOSE_CASE_ID.match(case_id):
        return
    detail = f"No case with id {case_id!r}: ids look like IL-0428."
    if not looks_like_case_id(case_id):
        raise Http404(detail)
    closest = find_case(case_id).closest
    raise UnknownResource(detail, [ParameterError("case_id", "ids look like IL-0428", case_id, closest)])


def case_exists(request: Request, *, case_id: str, **kwargs) -> bool:
    return selectors.visible_case_exists(case_id)


def own_version(request: Request, *, case_id: str, **kwargs) -> str | None:
    """The case's own version for its ETag (`http.case_version`), None when no published or
    retracted case has exactly this id (`selectors.visible_case_modified`)."""
    modified = selectors.visible_case_modified(case_id)
    return None if modified is None else case_version(case_id, modified)


def visible_case(request: Request, case_id: str) -> Case | HttpResponsePermanentRedirect:
    """The published or retracted case `case_id`, a 301 to its canonical spelling or (for a
    merged id, with a JSON body naming `merged_into`) to the kept case, or 404 naming the
    closest ids (`selectors.find_case`)."""
    lookup = find_case(case_id)
    if lookup.canonical_id is not None:
        response = redirect_to_canonical(request, case_id, lookup.canonical_id)
        if lookup.merged_from is not None:
            response.content = json.dumps(
                {
                    "id": case_id,
                    "merged_into": lookup.canonical_id,
                    "url": request.build_absolute_uri(response["Location"]),
                }
            )
            response["Content-Type"] = "application/json"
        return response
    if lookup.case is not None:
        return lookup.case
    raise UnknownResource(
        f"No case with id {case_id!r}.",
        [ParameterError("case_id", "no published or retracted case has this id", case_id, lookup.closest)],
    )


class CaseListView(CaseCreateMixin, ApiView):
    """`GET /api/cases/`: `search_cases` with the parsed query, filters, ordering and page;
    answers `CaseListSerializer`. 400 for bad parameters, 404 past the last page."""

    @extend_schema(
        operation_id="cases_list",
        summary="Search and browse published cases",
        description=(
            "Published cases matching `q` (ranked, with snippets) and the facet filters, "
            "newest first without `q`. The answer holds the total `count`, `next` / "
            "`previous` page links and facet counts over the whole result.\n\n"
            "Filters take a term's slug, name or synonym in any letter case (stored and "
            "linked as the slug). Unknown parameters, unknown filter values (with "
            "suggestions), malformed dates, an unknown `sort` and `page_size` over "
            f"{MAX_PAGE_SIZE} are refused with 400 naming each parameter; a page past the "
            "last one is 404."
        ),
        parameters=[
            *LIST_QUERY.openapi(),
            *schema.CONDITIONAL_HEADERS,
        ],
        responses={
            200: OpenApiResponse(CaseListSerializer, "One page of cases with the total and facet counts."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(
                bad_request="Unknown parameter, unknown filter value, malformed date, bad "
                "sort or page size out of range.",
                not_found="The page is past the last page.",
            ),
        },
        examples=[
            OpenApiExample(
                "Hangs on NCCL, newest first",
                response_only=True,
                status_codes=["200"],
                value={
                    "count": 1,
                    "page": 1,
                    "page_size": 20,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "id": "IL-0428",
                            "title": "Test runs of 100B-200B models ...",
                            "score": None,
                            "confidence": None,
                            "snippet": None,
                            "matched_terms": [],
                        }
                    ],
                    "partial_matches": [],
                    "partial_count": 0,
                    "suggestion": None,
                    "facets": {"symptom": [{"value": "nccl-timeout", "label": "NCCL timeout", "count": 1}]},
                    "notes": [],
                },
            )
        ],
    )
    def get(self, request: Request) -> Response:
        reader = LIST_QUERY.reader(request.query_params)
        parsed, problems = parse_search(request.query_params)
        reader.report(problems)
        page = reader.value("page")
        page_size = reader.value("page_size")
        fields = reader.value("fields")
        facets = reader.value("facets")
        reader.finish()
        return self.answer(
            request,
            query=parsed.q,
            filters=parsed.filters,
            sort=parsed.effective_sort,
            page=page,
            page_size=page_size,
            fields=fields,
            facets=facets,
        )

    @conditional_on_store()
    def answer(
        self,
        request: Request,
        *,
        query: str,
        filters: CaseFilters,
        sort: str,
        page: int,
        page_size: int,
        fields: list[str] | None,
        facets: bool,
    ) -> Response:
        offset = (page - 1) * page_size
        results = search.search_cases(
            query=query, filters=filters, sort=sort, offset=offset, limit=page_size, facets=facets
        )
        if page > 1 and offset >= results.total:
            last = max(1, -(-results.total // page_size))
            raise Http404(f"Page {page} is past the last page ({last}).")
        url = request.build_absolute_uri()
        has_next = offset + page_size < results.total
        previous = page_link(url, "page", page - 1 if page > 2 else None) if page > 1 else None
        return Response(
            CaseListSerializer(
                {
                    "count": results.total,
                    "page": page,
                    "page_size": page_size,
                    "next": page_link(url, "page", page + 1) if has_next else None,
                    "previous": previous,
                    "results": [shapes.search_hit(hit, request, fields) for hit in results.hits],
                    "partial_matches": [
                        shapes.search_hit(hit, request, fields) for hit in results.partial_hits
                    ],
                    "partial_count": results.partial_total,
                    "suggestion": results.suggestion,
                    "facets": shapes.facet_counts(results.facets),
                    "notes": list(results.notes),
                }
            ).data
        )


class CaseDetailView(CaseUpdateMixin, ApiView):
    """`GET /api/cases/{id}`: `selectors.case_by_id` shaped by `documents.case_document` plus
    links (`schema.CaseDetail`). 301 to the canonical id, 404 for unknown ids."""

    @extend_schema(
        operation_id="cases_retrieve",
        summary="One case",
        description=(
            "The case document exactly as `case.schema.json` defines it (the same one "
            f"`export_cases` writes) plus {', '.join(f'`{name}`' for name in DETAIL_ADDS)}. "
            'A retracted case still resolves, with `status: "retracted"`; drafts do not exist '
            "here. `fields` keeps only the named fields (and `id`), as on the case list; a retracted "
            "case keeps `status` and `retraction_reason` too, whatever `fields` names. "
            'The `ETag` is `"<case version>.<representation>"`: it changes whenever any case does '
            "(the answer lists related cases), so send it in `If-None-Match`; a write "
            "(`PUT`, `PATCH`, `/status`, `/merge`) sends it in `If-Match`, which compares the case "
            "version alone: it holds until this case itself changes."
        ),
        parameters=[CASE_ID_PARAMETER, *DETAIL_QUERY.openapi(), *schema.CONDITIONAL_HEADERS],
        responses={
            200: OpenApiResponse(
                response=schema.CASE_DETAIL_OR_FIELDS,
                description="The case (`CaseDetail`), or with `fields` only those (`CaseDetailFields`).",
            ),
            301: OpenApiResponse(
                description="The id spelt otherwise (`il-0428`, `428`): `Location` is the canonical URL."
            ),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(
                bad_request="A query parameter other than `fields`, or `fields` naming an unknown field.",
                not_found="No published or retracted case has this id (the closest ids are named).",
            ),
        },
    )
    def get(self, request: Request, case_id: str) -> Response:
        fields = DETAIL_QUERY.parse(request.query_params)["fields"]
        check_case_id(case_id)
        return self.answer(request, case_id=case_id, fields=fields)

    @conditional_on_store(keep=True, version=own_version)
    def answer(self, request: Request, *, case_id: str, fields: list[str] | None) -> HttpResponseBase:
        case = visible_case(request, case_id)
        if not isinstance(case, Case):
            return case
        detail = CaseDetailSerializer(shapes.case_detail(selectors.record_of(case), request)).data
        return Response(shapes.detail_fields(detail, fields))


class CaseSimilarView(ApiView):
    """`GET /api/cases/{id}/similar`: `search.similar_cases` of the case, best first
    (`SimilarListSerializer`). 400 for a bad `limit`, 404 for unknown ids."""

    @extend_schema(
        operation_id="cases_similar",
        summary="Cases similar to one case",
        description=(
            "Published cases most like this one, best first, each with its score (0 to 1) "
            "and its reasons: the shared vocabulary terms by facet and the parts the score "
            "is made of; apart, in `related`, the published cases an editor linked to it (as in "
            "the case document and MCP `similar_incidents`), which `results` leave out."
        ),
        parameters=[
            CASE_ID_PARAMETER,
            *SIMILAR_QUERY.openapi(),
            *schema.CONDITIONAL_HEADERS,
        ],
        responses={
            200: OpenApiResponse(SimilarListSerializer, "Similar cases, best first."),
            301: OpenApiResponse(description="Redirect to the canonical id."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(
                bad_request="Unknown parameter or `limit` out of range.",
                not_found="No published or retracted case has this id.",
            ),
        },
    )
    def get(self, request: Request, case_id: str) -> Response:
        limit = SIMILAR_QUERY.parse(request.query_params)["limit"]
        check_case_id(case_id)
        return self.answer(request, case_id=case_id, limit=limit)

    @conditional_on_store(keep=True, exists=case_exists)
    def answer(self, request: Request, *, case_id: str, limit: int) -> HttpResponseBase:
        case = visible_case(request, case_id)
        if not isinstance(case, Case):
            return case
        return Response(
            SimilarListSerializer(
                {
                    "case": case.id,
                    "url": request.build_absolute_uri(reverse("api:case-detail", args=[case.id])),
                    "results": [
                        shapes.similar_case(s, request)
                        for s in search.similar_cases(case, limit=limit, without_hand_linked=True)
                    ],
                    # Often the closest case of all (walk #36: IL-0463's sibling IL-0464), which
                    # a script reading only this answer missed.
                    "related": [shapes.related_case(c, request) for c in selectors.related_cases(case)],
                }
            ).data
        )
