"""`/api/codes/` and `/api/codes/{slug}`: the error codes, one code's cases and root causes."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors
from incidents.models import Facet

from .. import schema, shapes
from ..http import ApiView, conditional_on_store, redirect_to_canonical
from ..params import reject_all
from ..serializers import ErrorCodeDetailSerializer, ErrorCodeListSerializer
from .catalog import unknown_term

NO_PARAMETERS = "A query parameter was given; this endpoint takes none."


class CodeListView(ApiView):
    """`GET /api/codes/`: `selectors.error_codes()` (`ErrorCodeListSerializer`)."""

    @extend_schema(
        operation_id="codes_list",
        summary="Error codes",
        description="Every error code (Xid, NCCL results, CUDA errors, InfiniBand completion "
        "statuses, PyTorch watchdog and TCPStore, Kubernetes and Slurm reasons) with its meaning, "
        "cited source, spellings, match patterns and number of published cases.",
        parameters=schema.CONDITIONAL_HEADERS,
        responses={
            200: OpenApiResponse(ErrorCodeListSerializer, "Every error code."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(bad_request=NO_PARAMETERS),
        },
    )
    def get(self, request: Request) -> Response:
        reject_all(request.query_params)
        return self.answer(request)

    @conditional_on_store(keep=True)
    def answer(self, request: Request) -> Response:
        return Response(
            ErrorCodeListSerializer(
                {"results": [shapes.error_code(t, request) for t in selectors.error_codes()]}
            ).data
        )


class CodeDetailView(ApiView):
    """`GET /api/codes/{slug}`: `selectors.code_detail` (`ErrorCodeDetailSerializer`); a
    name or synonym redirects (301) to the slug, anything else is a 404 naming the closest
    codes, as the page's (`catalog.unknown_term`)."""

    @extend_schema(
        operation_id="codes_retrieve",
        summary="One error code",
        description="The code's meaning and source, how often each root cause was the answer "
        "among the published cases that showed it, the checks they name, and the cases.",
        parameters=[
            OpenApiParameter(
                "slug",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                description="Code slug (`xid-79`); its name or a synonym (`Xid 79`) redirects to it.",
            ),
            *schema.CONDITIONAL_HEADERS,
        ],
        responses={
            200: OpenApiResponse(ErrorCodeDetailSerializer, "The code."),
            301: OpenApiResponse(description="The code's slug, when named by its name or a synonym."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(
                bad_request=NO_PARAMETERS, not_found="No such error code (the closest are named)."
            ),
        },
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        reject_all(request.query_params)
        return self.answer(request, slug=slug)

    @conditional_on_store(keep=True)
    def answer(self, request: Request, *, slug: str) -> HttpResponse:
        detail = selectors.code_detail(slug)
        if detail is None:
            # Found and worded as the page finds and words it (`/codes/xid-97`): "No error code
            # called “xid-97”. Did you mean Xid 74, ...?", the closest in `suggestions`.
            lookup = selectors.find_facet_term(Facet.ERROR_CODE, slug)
            if lookup.term is None:
                raise unknown_term(slug, lookup)
            return redirect_to_canonical(request, slug, lookup.term.slug)
        return Response(ErrorCodeDetailSerializer(shapes.error_code_detail(detail, request)).data)
