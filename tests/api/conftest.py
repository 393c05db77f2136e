"""Fixtures for the API tests: throttling off unless a test turns it on, the OpenAPI schema,
and a check of real answers against it."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

from incidents.models import Case
from tests.conftest import set_throttle_rates

NO_LIMITS: dict[str, str | None] = {"api": None, "api-heavy": None}


@pytest.fixture(autouse=True)
def no_throttling(settings):
    """Most tests make many requests from one address; tests/api/test_throttling.py sets
    its own small limits."""
    set_throttle_rates(settings, NO_LIMITS)


@cache
def openapi_schema() -> dict[str, Any]:
    """The schema exactly as /api/schema/ serves it (generated in-process, as JSON)."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated, renderer_context={}))


def assert_matches_schema(response, path: str, method: str = "get") -> None:
    """Validate a JSON answer against the response schema the OpenAPI document gives for
    `method path` and the answer's status."""
    schema = openapi_schema()
    operation = schema["paths"][path][method]
    documented = operation["responses"][str(response.status_code)]
    media_type = response["Content-Type"].split(";")[0]
    body_schema = documented["content"][media_type]["schema"]
    # `#/components/...` references resolve against this wrapper, which carries them.
    wrapper = {"allOf": [body_schema], "components": schema["components"]}
    validator = jsonschema.Draft202012Validator(wrapper, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(response.json()), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def published_ids() -> list[str]:
    return sorted(Case.objects.published().values_list("id", flat=True))
