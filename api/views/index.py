"""`GET /api/`: the API's index, its endpoints and where its schema and docs are. It was a
404 ("No resource at /api/"), with no pointer to `/api/schema/` or `/api/docs/` (a new
user's walkthrough)."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from .. import schema
from ..http import ApiView
from ..params import reject_all
from ..serializers import ResponseSerializer

METHODS = ("get", "post", "put", "patch", "delete")


@cache
def endpoints() -> tuple[dict[str, Any], ...]:
    """Every path of the OpenAPI schema as the index lists it: `{"path": "/api/cases/{case_id}",
    "methods": ["GET", "PATCH"], "summary": "..."}` (summaries of its operations, in method
    order, joined by " / "), in the schema's order. Built once per process from what the
    schema is built from (its generator's endpoints, each operation's `@extend_schema`
    summary and exclusion), so the index never lists what the schema does not; but not by
    generating the schema, which cost about 0.9 s on the first `GET /api/` after a start
    (every operation's parameters, bodies and responses, for three fields of each)."""
    generator = SchemaGenerator()
    generator._initialise_endpoints()
    found: dict[str, dict[str, str]] = {}
    for path, path_regex, method, view in generator._get_paths_and_endpoints():
        view.request = spectacular_settings.GET_MOCK_REQUEST(method, path, view, None)
        # What `AutoSchema.get_operation` sets before reading the summary and exclusion.
        operation = view.schema
        operation.path, operation.path_regex, operation.method = path, path_regex, method.upper()
        if operation.is_excluded():
            continue
        found.setdefault(path if path.startswith("/") else "/" + path, {})[method.lower()] = (
            operation.get_summary() or ""
        )
    listed = []
    for path, operations in found.items():
        methods = [m for m in METHODS if m in operations]
        summaries = [s for s in dict.fromkeys(operations[m] for m in methods) if s]
        upper = [method.upper() for method in methods]
        listed.append({"path": path, "methods": upper, "summary": " / ".join(summaries)})
    return tuple(listed)


class ApiIndexEndpointSerializer(ResponseSerializer):
    """One endpoint of the API, as the schema describes it."""

    path = serializers.CharField(help_text="The path, `{name}` for a path parameter.")
    methods = serializers.ListField(child=serializers.CharField(), help_text="Its HTTP methods.")
    summary = serializers.CharField(help_text="What its operations do, one summary a method.")


class ApiIndexSerializer(ResponseSerializer):
    """The API's index: where its schema and docs are, and its endpoints."""

    schema = serializers.URLField(help_text="The OpenAPI 3.1 schema (JSON; `?format=yaml` for YAML).")
    docs = serializers.URLField(help_text="The schema read as pages (Swagger UI, served locally).")
    endpoints = ApiIndexEndpointSerializer(
        many=True, help_text="Every endpoint the schema describes, in its order."
    )


class ApiIndexView(ApiView):
    """`GET /api/`: where the schema and the docs are, and every endpoint with its methods
    and summary (`endpoints`). No query."""

    @extend_schema(
        operation_id="api_index",
        summary="The API's index: its endpoints, schema and docs",
        description=(
            "Where the OpenAPI schema and its docs are, and every endpoint the schema describes"
            " with its methods and summary."
        ),
        responses={
            200: OpenApiResponse(ApiIndexSerializer, "The index."),
            **schema.error_responses(bad_request="A query parameter was given; this endpoint takes none."),
        },
    )
    def get(self, request: Request) -> Response:
        reject_all(request.query_params)
        index = {
            "schema": request.build_absolute_uri(reverse("api:schema")),
            "docs": request.build_absolute_uri(reverse("api:docs")),
            "endpoints": list(endpoints()),
        }
        return Response(ApiIndexSerializer(index).data)
