"""`POST /api/affected`: component versions in, the cases whose affected ranges hold them out."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors
from incidents.encodable import encodable
from incidents.selectors.affected import AffectedMatch

from .. import schema, shapes
from ..errors import InvalidParameters, ParameterError
from ..http import ApiView
from ..params import reject_all
from ..parsers import JSONBodyParser
from ..serializers import AffectedRequestSerializer, AffectedResponseSerializer

RULE = (
    "Versions are compared with the `packaging` library (PEP 440) after dropping a leading `v` and a "
    "Debian epoch (`1:535.104.05` compares as 535.104.05): NCCL 2.19.3, driver 535.104.05 (number by "
    "number), CUDA 12.4, PyTorch 2.1.0+cu121; pip's pin `==2.1.0` is read as 2.1.0. A range "
    "includes a version listed in `versions`, or one at or after `introduced`, before `fixed` and "
    'at or before `last_affected` (`introduced` "0": every earlier version); a version with fewer numbers '
    "names its series (`2.26` holds 2.26.2, up to `fixed`). A range with no `introduced` "
    "starts at the earliest version it lists; a version before that, or a bound with no order (`r0.3.0`), "
    "puts the range in `unknown` (possibly affected)."
)


def match_entry(match: AffectedMatch, request: Request) -> dict[str, Any]:
    """`AffectedMatchSerializer` (no queries)."""
    return {
        "case": shapes.case_summary(match.case, request),
        "component": match.component,
        "version": match.version,
        "range": match.range,
        "why": match.verdict.why,
        "fixed": match.fixed,
        "workaround": match.workaround,
    }


def unwrapped(body: object) -> object:
    """The mapping of component -> version a body holds: `{"versions": ...}`'s value, or the
    bare mapping. A body holding `versions` alone is the wrapper whatever its value (no
    component is named so): `{"versions": ""}` is an empty `versions`, not a component
    "versions" of version "" to look up."""
    if isinstance(body, dict) and set(body) == {"versions"}:
        return body["versions"]
    return body


class AffectedView(ApiView):
    """`POST /api/affected`: `selectors.check_versions` then `selectors.affected_cases`
    (`AffectedResponseSerializer`). Components by name, slug or synonym, pip's names
    included (`nvidia-nccl-cu12`, `torch`); keys no component term names are left out and
    listed in `skipped` (with the nearest names) when another key is known. 400 when no key
    names a component (each named, with the nearest names), for a version with no order, a
    component named twice, and a body that is not a JSON object of strings."""

    parser_classes = [JSONBodyParser]

    @extend_schema(
        operation_id="affected_create",
        summary="Am I affected?",
        description='Send the versions you run, as `{"versions": {component: version}}` or the bare '
        "mapping; get the published cases whose `affected` ranges include them, with the fixed "
        "version and the case's workaround. Components go by name, slug or synonym, pip's names "
        "included (`nvidia-nccl-cu12`, `torch`): keys naming no component (`numpy`) are left out and "
        "listed in `skipped` when another key names one. " + RULE + " Read-only (POST for the body).",
        request=AffectedRequestSerializer,
        responses={
            200: OpenApiResponse(AffectedResponseSerializer, "The cases, newest first."),
            **schema.error_responses(
                bad_request="A body that is not an object of component -> version strings, no key naming "
                "a component (each named, with the nearest ones), a component named twice or a version "
                "with no order."
            ),
        },
        examples=[
            OpenApiExample(
                "A training node",
                request_only=True,
                value={"versions": {"NCCL": "2.19.3", "NVIDIA driver": "535.104.05", "PyTorch": "2.1.0"}},
            )
        ],
    )
    def post(self, request: Request) -> Response:
        reject_all(request.query_params)
        data = unwrapped(request.data)
        if not selectors.is_versions(data):
            raise InvalidParameters([ParameterError("versions", selectors.versions_detail(data))])
        resolved, problems = selectors.check_versions(data)
        errors = [ParameterError(p.component, p.detail, p.value, list(p.suggestions)) for p in problems]
        if selectors.refusing(problems):
            raise InvalidParameters(errors)
        answer = selectors.affected_cases(resolved)
        return Response(
            AffectedResponseSerializer(
                {
                    "checked": answer.checked,
                    "count": len(answer.affected),
                    "affected": [match_entry(m, request) for m in answer.affected],
                    "unknown": [match_entry(m, request) for m in answer.unknown],
                    # Keys as sent, a lone surrogate in one written as its escape (as errors are).
                    "skipped": [encodable(e.as_dict()) for e in errors],
                }
            ).data
        )
