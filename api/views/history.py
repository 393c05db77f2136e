"""`GET /api/cases/{id}/history`: every recorded change of a case with field-level diffs."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from incidents.history import case_history

from .. import schema
from ..http import ApiView
from ..params import reject_all
from .cases import CASE_ID_PARAMETER, check_case_id, visible_case

ChangeEntries = inline_serializer(
    "FieldChange",
    many=True,
    fields={
        "field": serializers.CharField(
            help_text="Path in the case document (`facts.severity`) or an editorial field."
        ),
        "old": serializers.JSONField(allow_null=True),
        "new": serializers.JSONField(allow_null=True),
    },
)
RevisionEntries = inline_serializer(
    "Revision",
    fields={
        "number": serializers.IntegerField(help_text="1 for the first recorded state."),
        "modified": serializers.DateTimeField(help_text="When the change was made (UTC)."),
        "user": serializers.CharField(allow_null=True, help_text="Editor's username; null for an import."),
        "reason": serializers.CharField(),
        "created": serializers.BooleanField(),
        "status": serializers.CharField(),
        "changes": ChangeEntries,
    },
    many=True,
)


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
            200: OpenApiResponse(
                inline_serializer(
                    "CaseHistory", {"case": serializers.CharField(), "results": RevisionEntries}
                ),
                "The history, newest first.",
            ),
            301: OpenApiResponse(description="Redirect to the canonical or kept id."),
            **schema.error_responses(bad_request="A query parameter was given.", not_found="No such case."),
        },
    )
    def get(self, request: Request, case_id: str) -> Response:
        reject_all(request.query_params)
        check_case_id(case_id)
        case = visible_case(request, case_id)
        if not hasattr(case, "pk"):
            return case  # type: ignore[return-value]
        return Response(
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
        )
