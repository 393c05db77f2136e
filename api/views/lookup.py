"""`GET /api/lookup?ref=` / `?url=`: the cases citing an upstream record or source."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors

from .. import schema, shapes
from ..http import ApiView, conditional_on_store
from ..query import QueryParams, Text
from ..serializers import UpstreamLookupSerializer

MAX_REFERENCE_CHARS = 2000
BAD_LOOKUP = (
    "Give exactly one of `ref` (an alias: `owner/repo#N`, `repo#N`, `arXiv:NNNN.NNNNN`) and `url` "
    "(an http(s) URL), at most 2,000 characters."
)


# Length and form are checked by the view, which names the one of the two that was given.
LOOKUP_QUERY = QueryParams(
    [
        Text("ref", "Alias, e.g. `NVIDIA/nccl#1116`."),
        Text("url", "A reference or source URL."),
    ]
)


class LookupView(ApiView):
    """`GET /api/lookup`: `selectors.record_lookup` (`UpstreamLookupSerializer`).

    400 (naming the parameter) when neither or both of `ref` and `url` are given, when one
    is repeated or too long, or when it names no record; a record no case cites is a 200
    with `count` 0.
    """

    @extend_schema(
        operation_id="lookup_retrieve",
        summary="Cases citing an upstream record",
        description=(
            "The published cases that cite an upstream issue, pull request, paper or page, in "
            "their `references` or their `sources`. GitHub issue and pull-request URLs and "
            "`owner/repo#N` name the same record (any letter case); `repo#N` matches any owner."
        ),
        parameters=[
            *LOOKUP_QUERY.openapi(),
            *schema.CONDITIONAL_HEADERS,
        ],
        responses={
            200: OpenApiResponse(UpstreamLookupSerializer, "The citing cases."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(bad_request=BAD_LOOKUP),
        },
    )
    def get(self, request: Request) -> Response:
        params = LOOKUP_QUERY.reader(request.query_params)
        given = {name: value for name in LOOKUP_QUERY.names if (value := params.value(name)) is not None}
        if not given and not params.errors:
            params.error("ref", "give `ref` (an alias such as NVIDIA/nccl#1116) or `url`")
        elif len(given) > 1:
            params.error("url", "give `ref` or `url`, not both")
        for name, value in given.items():
            if len(value) > MAX_REFERENCE_CHARS:
                params.error(name, f"longer than {MAX_REFERENCE_CHARS} characters")
            else:
                try:
                    selectors.reference_condition(value)
                except selectors.NotAReference:
                    expected = (
                        "an http(s) URL"
                        if name == "url"
                        else "an alias: owner/repo#N, repo#N or arXiv:NNNN.NNNNN"
                    )
                    hint = selectors.cut_at_hash(value) if name == "ref" else None
                    detail = f"names no upstream record; give {expected}" + (f"; {hint}" if hint else "")
                    params.error(name, detail, value[:200])
        params.finish()
        [(name, value)] = given.items()
        return self.answer(request, name=name, value=value)

    @conditional_on_store()
    def answer(self, request: Request, *, name: str, value: str) -> Response:
        found = selectors.record_lookup(value)
        html_url = shapes.absolute(request, f"{reverse('incidents:reference')}?{urlencode({name: value})}")
        return Response(
            UpstreamLookupSerializer(
                {
                    "query": found.query,
                    "key": found.key,
                    "record": found.record,
                    "count": len(found.cases),
                    "cases": [
                        {**shapes.case_summary(case, request), "via": found.via[case.id]}
                        for case in found.cases
                    ],
                    "html_url": html_url,
                }
            ).data
        )
