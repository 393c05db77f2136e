"""`GET /api/cases/{id}/history`: every recorded change of a case with field-level diffs."""

from __future__ import annotations

from django.http import Http404, HttpResponsePermanentRedirect
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors
from incidents.history import case_history

from .. import schema
from ..editorial_serializers import CaseHistorySerializer
from ..http import ApiView
from ..params import reject_all
from .cases import CASE_ID_PARAMETER, check_case_id


class CaseHistoryView(ApiView):
    """`GET /api/cases/{id}/history`: `history.case_history`, newest first."""

    @extend_schema(
        operation_id="cases_history",
        summary="The change history of one case",
        description=(
            "Every recorded change, newest first: when, who (null for an import), why, the "
            "status after it and each changed field with its old and new value."
        ),
        parameters=[CASE_ID_PARAMETER],
        responses={
            200: OpenApiResponse(CaseHistorySerializer, "The history, newest first."),
            301: OpenApiResponse(description="Redirect to the canonical or kept id."),
            **schema.error_responses(bad_request="A query parameter was given.", not_found="No such case."),
        },
    )
    def get(self, request: Request, case_id: str) -> Response:
        reject_all(request.query_params)
        check_case_id(case_id)
        case = selectors.visible_case_row(case_id)
        if case is None:
            target = selectors.redirect_target(case_id)
            if target is None:
                raise Http404(f"No case with id {case_id!r}.")
            return HttpResponsePermanentRedirect(reverse("api:case-history", args=[target]))  # type: ignore[return-value]
        return Response(
            CaseHistorySerializer(
                {
                    "case": case.pk,
                    "results": [
                        {
                            "number": r.number,
                            "modified": r.when.isoformat().replace("+00:00", "Z"),
                            "user": r.user,
                            "reason": r.reason,
                            "created": r.created,
                            "status": r.status,
                            "changes": [{"field": c.field, "old": c.old, "new": c.new} for c in r.changes],
                        }
                        for r in case_history(case.pk)
                    ],
                }
            ).data
        )
