"""One error shape for the whole API: RFC 9457 problem details.

`{"type": "about:blank", "title": "Not Found", "status": 404, "detail": "...",
"errors": [{"parameter": "page_size", "detail": "..."}]}` with content type
`application/problem+json`. `errors` appears when specific parameters or fields are wrong.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

PROBLEM_CONTENT_TYPE = "application/problem+json"


def problem_body(
    status: int, title: str | None, detail: str, errors: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if errors:
        body["errors"] = errors
    return body


def problem_response(
    status: int, title: str | None, detail: str, errors: list[dict[str, Any]] | None = None
) -> JsonResponse:
    """A plain Django response in the problem shape (for handlers outside DRF)."""
    return JsonResponse(
        problem_body(status, title, detail, errors), status=status, content_type=PROBLEM_CONTENT_TYPE
    )


def _field_errors(data: Any, prefix: str = "") -> list[dict[str, Any]]:
    if isinstance(data, dict):
        errors = []
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            errors.extend(_field_errors(value, name))
        return errors
    if isinstance(data, list) and all(not isinstance(v, (dict, list)) for v in data):
        return [{"parameter": prefix or "body", "detail": " ".join(str(v) for v in data)}]
    if isinstance(data, list):
        return [e for i, v in enumerate(data) for e in _field_errors(v, f"{prefix}[{i}]")]
    return [{"parameter": prefix or "body", "detail": str(data)}]


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler that answers every error in the problem shape."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    response = exception_handler(exc, context)
    if response is None:
        return None
    errors = None
    if isinstance(exc, exceptions.ValidationError):
        errors = _field_errors(exc.detail)
        detail = "; ".join(f"{e['parameter']}: {e['detail']}" for e in errors)
    else:
        detail = str(getattr(exc, "detail", exc))
    response.data = problem_body(response.status_code, None, detail, errors)
    response.content_type = PROBLEM_CONTENT_TYPE
    return response
