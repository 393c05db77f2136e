"""OpenAPI pieces shared by the views: the case document schema, error responses,
conditional-request headers and the filter parameters.

The case document's schema is `case.schema.json` itself (JSON Schema 2020-12, which
OpenAPI 3.1 uses as is): `add_case_document_schemas` copies it into the components with
its `$defs` inlined, once as `CaseDocument` and once as `CaseDetail` (plus the fields
`CaseDetailSerializer` declares).
"""

from __future__ import annotations

import copy
from typing import Any

from drf_spectacular.plumbing import get_doc
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from incidents.document_model import case_model
from incidents.selectors import FACETS
from incidents.selectors.scale import BOUNDS, MAX_BOUND

from .serializers import CaseDetailSerializer, ProblemSerializer

PROBLEM = "application/problem+json"
CASE_ID_PATTERN = "^[Ii][Ll]-[0-9]{4,6}$"
SLUG_PATTERN = "^[a-z0-9]+(?:-[a-z0-9]+)*$"


def case_schema() -> dict[str, Any]:
    """`case.schema.json` with `$defs` references inlined and the file-level keys dropped."""
    return case_model().standalone_schema


def add_case_document_schemas(result: dict[str, Any], generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: add `CaseDocument`, and make `CaseDetail` (generated
    from `CaseDetailSerializer`, the fields the API adds) the case document plus those fields;
    `CaseWritten` (a write's answer, `CaseWrittenSerializer`: `warnings` too) likewise."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    document = copy.deepcopy(case_schema())
    schemas["CaseDocument"] = document
    # Re-added after `CaseDocument`, which they extend. Only a write answers `CaseWritten`,
    # the detail's fields and `warnings`: the detail's (a `$ref` alone, so never generated)
    # are those but `warnings`, described by its serializer.
    written = schemas.pop("CaseWritten")
    detail_fields = {name: value for name, value in written["properties"].items() if name != "warnings"}
    derived = {
        "CaseDetail": {
            "description": get_doc(CaseDetailSerializer),
            "properties": detail_fields,
            "required": [name for name in written.get("required", ()) if name in detail_fields],
        },
        "CaseWritten": written,
    }
    for name, title in (("CaseDetail", "Case detail"), ("CaseWritten", "Case as written")):
        added = schemas.pop(name, None) or derived[name]
        extended = copy.deepcopy(document)
        extended["title"] = title
        extended["description"] = added["description"]
        extended["properties"].update(added["properties"])
        # In declaration order, as the answer holds them (drf-spectacular sorts `required`).
        extended["required"] = [
            *extended["required"],
            *(n for n in added["properties"] if n in added.get("required", ())),
        ]
        schemas[name] = extended
    detail = schemas["CaseDetail"]
    # `GET /api/cases/{id}?fields=`: the same fields, only `id` sure to be there.
    trimmed = copy.deepcopy(detail)
    trimmed["title"] = "Case detail, some fields"
    trimmed["description"] = (
        "A `CaseDetail` trimmed by `fields`: the named fields and `id`; a case that is not "
        "published (`status` retracted) keeps `status` and `retraction_reason` too, whatever "
        "`fields` names."
    )
    trimmed["required"] = ["id"]
    schemas["CaseDetailFields"] = trimmed
    return result


# A value of only blanks, as `selectors.is_blank` reads it (`str.strip`'s whitespace, which
# is what `\s` matches in Python's regular expressions, the schema's reader here).
BLANK = {"type": "string", "pattern": "^\\s*$"}


def allow_empty_values(result: dict[str, Any], generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: every optional query parameter whose schema does
    not admit `""` gets `allowEmptyValue: true`. A parameter given empty (`?sort=`,
    `?fields=`, `?page=`, as an HTML form submits an empty field) is read as not given, by
    the rule of every door (`selectors.is_blank`), so an empty value is valid input and not
    refused (a required parameter would still be missing). Left as they are: a plain text
    parameter (`q`, `title`), whose schema admits `""` already, and a repeatable one
    (`topic`, `url`: an array of text), whose blank values are dropped as they always were.
    For those the flag would only make the schema `anyOf` it-or-empty, whose other values
    (an array, null) read on the wire as text, and so as valid."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                schema = parameter.get("schema", {})
                repeatable = schema.get("type") == "array" and parameter.get("explode", True)
                plain_text = schema.get("type") == "string" and not {"enum", "format", "pattern"} & set(
                    schema
                )
                optional = parameter.get("in") == "query" and not parameter.get("required")
                if optional and not repeatable and not plain_text:
                    parameter["allowEmptyValue"] = True
                    # Only blanks (`?page_size=%20`) is not given either (`is_blank` strips).
                    parameter["schema"] = {"anyOf": [schema, BLANK]}
    return result


CASE_DETAIL_OR_FIELDS = {
    "anyOf": [
        {"$ref": "#/components/schemas/CaseDetail"},
        {"$ref": "#/components/schemas/CaseDetailFields"},
    ]
}


def problem(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=ProblemSerializer, description=description)


def error_responses(
    *, bad_request: str | None = None, not_found: str | None = None
) -> dict[Any, OpenApiResponse]:
    """Problem-details responses every operation documents, plus 400 / 404 when given."""
    responses: dict[Any, OpenApiResponse] = {}
    if bad_request:
        responses[(400, PROBLEM)] = problem(bad_request)
    if not_found:
        responses[(404, PROBLEM)] = problem(not_found)
    responses[(405, PROBLEM)] = problem("Method not allowed (the `Allow` header lists those that are).")
    responses[(429, PROBLEM)] = OpenApiResponse(
        response=ProblemSerializer,
        description="Too many requests from this client address; wait `Retry-After` seconds.",
    )
    responses[(500, PROBLEM)] = problem("The server failed; the body is a problem document.")
    return responses


NOT_MODIFIED = OpenApiResponse(
    description="Not modified: the `If-None-Match` / `If-Modified-Since` validators still match. No body."
)

CONDITIONAL_HEADERS = [
    OpenApiParameter(
        "If-None-Match",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        required=False,
        description="An `ETag` from an earlier answer: 304 Not Modified while it still holds.",
    ),
    OpenApiParameter(
        "If-Modified-Since",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        required=False,
        description="An HTTP date: 304 Not Modified if nothing changed since then "
        "(ignored when If-None-Match is given).",
    ),
    OpenApiParameter(
        "ETag",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200],
        required=False,
        description="Validator of this answer; changes whenever any case is imported.",
    ),
    OpenApiParameter(
        "Last-Modified",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200],
        required=False,
        description="When a case was last written (HTTP date).",
    ),
    OpenApiParameter(
        "Cache-Control",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200, 304],
        required=False,
        description="`public, max-age=N`: reuse for N seconds, then revalidate.",
    ),
    OpenApiParameter(
        "Retry-After",
        OpenApiTypes.INT,
        OpenApiParameter.HEADER,
        response=[429],
        required=False,
        description="Seconds to wait before the next request.",
    ),
]


def filter_parameters() -> list[OpenApiParameter]:
    """Each facet filter of the registry (`selectors.FACETS`) and its `exclude_` twin,
    repeatable, then the numeric bounds on accelerator and node counts (`scale.BOUNDS`)."""
    parameters = []
    for spec in FACETS:
        kind = OpenApiTypes.INT if spec.kind == "year" else OpenApiTypes.STR
        parameters.append(
            OpenApiParameter(
                spec.param,
                kind,
                many=True,
                explode=True,
                required=False,
                description=f"{spec.label}: {spec.spelling}. Repeat to accept any of several "
                "values (OR); different facets combine with AND. An unknown value is refused "
                "(400) with the closest known values.",
            )
        )
        parameters.append(
            OpenApiParameter(
                spec.exclude_param,
                kind,
                many=True,
                explode=True,
                required=False,
                description=f"Leave out cases with this {spec.label.lower()} "
                f"(same values as `{spec.param}`; repeatable).",
            )
        )
    for bound in BOUNDS:
        parameters.append(
            OpenApiParameter(
                bound.param,
                OpenApiTypes.INT,
                required=False,
                description=f"Only cases whose {bound.field.replace('_', ' ')} is "
                f"{'at least' if bound.side == 'min' else 'at most'} this whole number (0 to "
                f"{MAX_BOUND:,}; inclusive). Cases that do not state the count are left out. "
                "A value that is not such a number, or a max below its min, is refused (400).",
            )
        )
    return parameters
