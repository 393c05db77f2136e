"""`POST /api/triage`: the on-call answer for scripts, the same as the MCP `triage` tool."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents.triage import TriageContext, triage, triage_document

from .. import schema
from ..http import ApiView
from ..params import reject_all, reject_unknown_keys, without_blank_optionals
from ..serializers import TriageRequestSerializer, TriageResponseSerializer
from ..shapes import absolute
from .match import _clean_text

# `Deprecation` (RFC 9745, a structured-field date: `@` and Unix seconds) on an answer to a
# body that sent `log`, the former name of `text`: since 2026-12-07 09:52:44 UTC, the commit
# that named it `text`. Read for one release more.
LOG_DEPRECATED_SINCE = "@1796637164"
LOG_DEPRECATED_NOTE = (
    "`log` is the former name of `text`, read for one release more: send the log lines as `text`."
)


class TriageView(ApiView):
    """`POST /api/triage`: `incidents.triage.triage` over the posted symptoms and log lines
    (`text`, or `log`, its former name), answered as `TriageResponseSerializer`; 400 for a bad
    body (a key it does not read included), 415 for non-JSON. A body that sends `log` is
    answered with a `Deprecation` header (`LOG_DEPRECATED_SINCE`) and, last of `notes`,
    `LOG_DEPRECATED_NOTE`."""

    throttle_scope = "api-heavy"

    @extend_schema(
        operation_id="triage_create",
        summary="Triage a failure against known cases",
        description=(
            "Send what failed (`symptoms`) and/or the log around it (`text`, as `POST /api/match` "
            "and the MCP tools name it; `log`, its former name, is still read), with what you know "
            "of the job (`job`: training or inference, `framework`, `accelerator`, `scale`); get "
            "the 3-5 most likely known cases, best first, each with a confidence label, why it "
            "matches, its root cause, what fixed it, checks to run and sources. `known` is false "
            "when nothing matches strongly. The MCP `triage` tool answers the same. Read-only.\n\n"
            "Deprecated: `log`. A body sending it is answered with a `Deprecation` header (RFC 9745) "
            f"and, last of `notes`, “{LOG_DEPRECATED_NOTE}”"
        ),
        request=TriageRequestSerializer,
        parameters=[
            OpenApiParameter(
                "Deprecation",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                response=[200],
                required=False,
                description=f"`{LOG_DEPRECATED_SINCE}` (RFC 9745: deprecated since that Unix time) when "
                "the body sent `log`, the former name of `text`; absent otherwise.",
            )
        ],
        responses={
            200: OpenApiResponse(TriageResponseSerializer, "Likely cases, best first."),
            (415, schema.PROBLEM): schema.problem("The body is not `application/json`."),
            **schema.error_responses(
                bad_request="Malformed JSON, neither `symptoms` nor `text`, a value out of range, "
                "an unknown key (with the closest accepted one)."
            ),
        },
        examples=[
            OpenApiExample(
                "Training hang",
                request_only=True,
                value={
                    "symptoms": "512-GPU training job hangs after a node was replaced",
                    "text": "Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE)",
                    "job": "training",
                    "scale": 512,
                },
            )
        ],
    )
    def post(self, request: Request) -> Response:
        reject_all(request.query_params)
        reject_unknown_keys(request.data, TriageRequestSerializer().fields)
        cleaned = without_blank_optionals(_clean_text(request.data), TriageRequestSerializer().fields)
        if isinstance(cleaned, dict) and isinstance(cleaned.get("log"), str):
            # The former name of `text`, cleaned as it is.
            cleaned = {**cleaned, "log": _clean_text({"text": cleaned["log"]})["text"]}  # type: ignore[index]
        body = TriageRequestSerializer(data=cleaned)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        context = TriageContext(
            job=data.get("job"),
            framework=data["framework"],
            accelerator=data["accelerator"],
            scale=data["scale"],
        )
        answer = triage(symptoms=data["symptoms"], log=data["text"], context=context, limit=data["limit"])

        def links(case_id: str) -> dict[str, str]:
            return {
                "url": absolute(request, reverse("api:case-detail", args=[case_id])),
                "html_url": absolute(request, reverse("incidents:case-detail", args=[case_id])),
            }

        document = triage_document(answer, links)
        sent_log = isinstance(request.data, dict) and "log" in request.data
        if sent_log:
            document["notes"] = [*document["notes"], LOG_DEPRECATED_NOTE]
        response = Response(TriageResponseSerializer(document).data)
        if sent_log:
            response["Deprecation"] = LOG_DEPRECATED_SINCE
        return response
