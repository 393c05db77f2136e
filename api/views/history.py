"""`GET /api/cases/{id}/history`: every recorded change of a case with field-level diffs."""

from __future__ import annotations

import datetime
from typing import Any

from django.http import Http404, HttpResponsePermanentRedirect
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors

from .. import schema
from ..editorial_serializers import CaseHistorySerializer
from ..http import ApiView
from ..params import reject_all
from .cases import CASE_ID_PARAMETER, check_case_id


def _utc(when: datetime.datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def _linked(request: Request, case_id: str) -> dict[str, str]:
    return {
        "id": case_id,
        "url": request.build_absolute_uri(reverse("api:case-detail", args=[case_id])),
        "history_url": request.build_absolute_uri(reverse("api:case-history", args=[case_id])),
    }


class CaseHistoryView(ApiView):
    """`GET /api/cases/{id}/history`: `selectors.history_of`, newest first; a merged case's
    own history, with the case it was merged into."""

    @extend_schema(
        operation_id="cases_history",
        summary="The change history of one case",
        description=(
            "Every recorded change, newest first: when, who (null for an import), why, the "
            "status after it and each changed field with its old and new value. A case merged "
            "into another keeps its own history here (its changes up to and with the merge), "
            "with `merged_into` naming the kept case; a kept case lists the cases merged into "
            "it in `merged_from`, each with its `history_url`."
        ),
        parameters=[CASE_ID_PARAMETER],
        responses={
            200: OpenApiResponse(CaseHistorySerializer, "The history, newest first."),
            301: OpenApiResponse(description="Redirect to the canonical spelling of the id."),
            **schema.error_responses(bad_request="A query parameter was given.", not_found="No such case."),
        },
    )
    def get(self, request: Request, case_id: str) -> Response:
        reject_all(request.query_params)
        check_case_id(case_id)
        shown = selectors.history_of(case_id)
        if shown is None:
            stored = selectors.history_spelling(case_id)
            if stored is None:
                raise Http404(f"No case with id {case_id!r}.")
            return HttpResponsePermanentRedirect(reverse("api:case-history", args=[stored]))  # type: ignore[return-value]
        body: dict[str, Any] = {
            "case": shown.case.pk,
            "status": shown.case.status,
            "merged_into": _linked(request, shown.merged_into.pk) if shown.merged_into else None,
            "merged_on": _utc(shown.merged_on) if shown.merged_on else None,
            "merged_from": [_linked(request, merged) for merged in shown.merged_from],
            "results": [
                {
                    "number": r.number,
                    "modified": _utc(r.when),
                    "user": r.user,
                    "reason": r.reason,
                    "created": r.created,
                    "status": r.status,
                    "changes": [{"field": c.field, "old": c.old, "new": c.new} for c in r.changes],
                }
                for r in shown.revisions
            ],
        }
        return Response(CaseHistorySerializer(body).data)
