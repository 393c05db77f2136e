"""One error shape for the whole API: RFC 9457 problem details.

Every 4xx and 5xx answer under /api/ is `application/problem+json`:

    {"type": "about:blank", "title": "Bad Request", "status": 400,
     "detail": "symptom: unknown value 'nccl-timout'", "instance": "/api/cases/",
     "errors": [{"parameter": "symptom", "detail": "unknown value 'nccl-timout'",
                 "value": "nccl-timout", "suggestions": ["nccl-timeout", "nccl-error"]}]}

`errors` appears when specific query parameters, path parameters or body fields are wrong
(one entry per problem; `value` and `suggestions` when there is something to show). DRF
views answer through `problem_exception_handler`; Django's own 400/403/404/500 handlers
(`incidentlib.errors`) through `problem_response`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, cast

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.http import Http404, HttpResponse
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler

from incidents.encodable import encodable

from .throttling import HEAVY_SCOPE, OverRate

PROBLEM_CONTENT_TYPE = "application/problem+json"
# What each rate scope limits at the API, and the other doors' work it is counted with, for a
# 429 (`OverRate.message`, the words MCP's 429 uses).
_RATED_WORK: dict[str, tuple[str, str]] = {
    "api": ("API requests", "MCP calls"),
    HEAVY_SCOPE: (
        "log matching, triage and export (POST /api/match, POST /api/triage, GET /api/export)",
        "MCP match_log and triage calls and /match/ page posts",
    ),
}


# Status phrases RFC 9110 renamed, which this Python's `HTTPStatus` still gives the old way
# ("Request Entity Too Large" beside Django's handler's "Content Too Large": two titles for one refusal).
TITLES: dict[int, str] = {413: "Content Too Large"}


@dataclass(frozen=True)
class ParameterError:
    """What is wrong with one parameter: its name, why, and what would be accepted."""

    parameter: str
    detail: str
    value: str | None = None
    suggestions: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"parameter": self.parameter, "detail": self.detail}
        if self.value is not None:
            entry["value"] = self.value
        if self.suggestions:
            entry["suggestions"] = list(self.suggestions)
        return entry


class InvalidParameters(exceptions.APIException):
    """400 naming every bad parameter at once (raised by `api.params`)."""

    status_code: int = status.HTTP_400_BAD_REQUEST  # a subclass may answer another 4xx
    default_code = "invalid"

    def __init__(self, errors: list[ParameterError]):
        self.errors = errors
        super().__init__("; ".join(f"{e.parameter}: {e.detail}" for e in errors))


class UnknownResource(exceptions.NotFound):
    """404 whose `errors` name the path parameter and the closest existing values."""

    def __init__(self, detail: str, errors: list[ParameterError]):
        self.errors = errors
        super().__init__(detail)


class UnsupportedCharset(InvalidParameters):
    """415 naming a body's charset that is no text encoding (raised by `api.parsers`)."""

    status_code = status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
    default_code = "unsupported_charset"


class FieldTooLarge(InvalidParameters):
    """413 naming a body field too long to read (`POST /api/match`'s JSON `text` over its
    character limit), as a body over the byte limit is a 413."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


class RateExceeded(exceptions.Throttled):
    """429 over the rate of `scope`, raised by a view that counts against a rate of its own
    (proposals) with its own `detail`; the API's throttle raises DRF's `Throttled`, whose
    scope is the view's `throttle_scope`. Either answers `scope`, `rate` and `retry_after`."""

    def __init__(self, wait: int, *, scope: str, detail: str | None = None):
        self.scope = scope
        super().__init__(wait=wait, detail=detail)


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


def problem_body(
    status: int,
    title: str | None,
    detail: str,
    errors: list[dict[str, Any]] | None = None,
    instance: str | None = None,
    extensions: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The problem-details dict; `title` defaults to the status phrase (RFC 9110's, `TITLES`:
    413 is "Content Too Large" whichever part of the stack refuses it); `extensions` are
    members of this kind of problem (a 429's `scope`, `rate`, `retry_after`). What it echoes
    (a parameter name, a value, a body key) is made `encodable`: a lone surrogate sent in
    JSON is shown as its escape instead of failing the renderer with a 500."""
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": title or TITLES.get(status) or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if instance:
        body["instance"] = instance
    if errors:
        body["errors"] = errors
    body.update(extensions or {})
    return encodable(body)


def problem_response(
    status: int,
    title: str | None,
    detail: str,
    errors: list[dict[str, Any]] | None = None,
    instance: str | None = None,
) -> HttpResponse:
    """A plain Django response in the problem shape (for handlers and middleware outside DRF),
    rendered by DRF's `JSONRenderer` as every DRF view's problem is: compact and UTF-8, so
    no error body reads otherwise (Django's `JsonResponse` put spaces after every `,` and
    `:` and escaped every non-ASCII character)."""
    response = HttpResponse(
        JSONRenderer().render(problem_body(status, title, detail, errors, instance)),
        status=status,
        content_type=PROBLEM_CONTENT_TYPE,
    )
    response["Cache-Control"] = "no-store"
    return response


# DRF's own messages for a body field, by error code, in the words of every parameter error
# (a phrase after the parameter's name, as `api.params` and `selectors.params` write them):
# "This field may not be blank." read unlike "must be between 1 and 100" beside it.
_DRF_WORDING: dict[str, str] = {
    "required": "is required",
    "blank": "must not be empty",
    "null": "must not be null",
    "not_a_list": "must be a list",
    "not_a_dict": "must be an object",
    "empty": "must not be empty",
}
_LIMIT_RE = re.compile(r"(no more than|at least) (\d+) (characters|elements)")
_NOT_AN_OBJECT_RE = re.compile(r"Expected a dictionary, but got (\w+)")
# The JSON names of the Python types DRF names in "Expected a dictionary, but got list."
_JSON_TYPES = {
    "list": "an array",
    "str": "a string",
    "int": "a number",
    "float": "a number",
    "bool": "a boolean",
}


def parameter_wording(detail: Any) -> str:
    """One body-field error in the words of every parameter error: DRF's defaults by their
    code (`This field may not be blank.` -> `must not be empty`, `Ensure this field has no
    more than 60 characters.` -> `must be at most 60 characters long`), any other sentence
    as a phrase (first letter lower case unless it starts a name such as `NCCL`, no final
    period)."""
    text = str(detail)
    code = getattr(detail, "code", None)
    if code in _DRF_WORDING:
        return _DRF_WORDING[code]
    if code == "invalid" and (wrong := _NOT_AN_OBJECT_RE.search(text)):
        return f"must be a JSON object, not {_JSON_TYPES.get(wrong.group(1), wrong.group(1))}"
    if code in ("max_length", "min_length") and (limit := _LIMIT_RE.search(text)):
        bound = "at most" if limit.group(1) == "no more than" else "at least"
        unit = "characters long" if limit.group(3) == "characters" else "items"
        return f"must be {bound} {limit.group(2)} {unit}"
    if text[:1].isupper() and not text[1:2].isupper():
        text = text[0].lower() + text[1:]
    return text.removesuffix(".")


def form_wording(field: Any, error: Any, *, given: bool) -> str:
    """One Django form field's error (a `ValidationError` of `form.errors.as_data()`) in the
    words of every parameter error, for a body a form reads (`POST /api/proposals/`): Django's
    defaults by their code and params ("This field is required." -> `is required`, or `must not
    be empty` when the field was `given`; "Ensure this value has at least 10 characters (it has
    5)." -> `must be at least 10 characters long; it has 5`, as the search text's limit reads; a
    refused choice -> `must be one of new, correction`), the form's own sentences as phrases
    (`parameter_wording`)."""
    code, params = getattr(error, "code", None), getattr(error, "params", None) or {}
    if code == "required":
        return "must not be empty" if given else "is required"
    if code in ("min_length", "max_length") and {"limit_value", "show_value"} <= set(params):
        bound = "at least" if code == "min_length" else "at most"
        return f"must be {bound} {params['limit_value']} characters long; it has {params['show_value']:,}"
    if code == "invalid_choice" and (choices := _choice_values(field)):
        return f"must be one of {', '.join(choices)}"
    if code == "invalid" and isinstance(field, forms.EmailField):
        return "must be an e-mail address such as name@example.org"
    return parameter_wording(" ".join(error.messages) if hasattr(error, "messages") else str(error))


def _choice_values(field: Any) -> list[str]:
    """The values a plain choice field accepts (none for a model choice, whose door names
    its terms itself)."""
    if isinstance(field, forms.ChoiceField) and not isinstance(field, forms.ModelChoiceField):
        # Normalized to (value, label) pairs by the field (django-stubs types it as any form given).
        pairs = cast("Iterable[tuple[Any, Any]]", field.choices)
        return [str(value) for value, _label in pairs if value != ""]
    return []


def form_errors(
    form: forms.Form, data: Mapping[str, Any], *, skip: Iterable[str] = ()
) -> list[ParameterError]:
    """A `ParameterError` for each refused field of a bound `form` (that did not validate),
    in the form's field order, worded by `form_wording`; a refused choice with the value sent
    and the accepted ones as `suggestions`, the form's own `suggestions` (a correction's
    closest case ids) where it has them; the fields named in `skip` (refused already, before
    the form read the body) left out. A form-wide error is the `body`'s."""
    skipped = set(skip)
    errors = []
    for name, refused in form.errors.as_data().items():
        if name in skipped:
            continue
        field = form.fields.get(name)
        detail = "; ".join(form_wording(field, error, given=name in data) for error in refused)
        choices = _choice_values(field) if any(e.code == "invalid_choice" for e in refused) else []
        suggestions = choices or list(getattr(form, "suggestions", {}).get(name, []))
        value = str(data[name]) if choices and name in data else None
        parameter = "body" if name == NON_FIELD_ERRORS else name
        errors.append(ParameterError(parameter, detail, value, suggestions))
    return errors


def word_field_errors(form: forms.Form, data: Mapping[str, Any]) -> None:
    """Reword in place each field error of a bound `form` by `form_wording`, as
    `form_errors` words them for `POST /api/proposals/`, for a page showing the form's errors
    beside each field's label (`/propose/`: "Title: must be at least 10 characters long; it
    has 5", not Django's "Ensure this value has at least 10 characters (it has 5)."). A
    form-wide error, a sentence shown alone, is left as it is."""
    for name, refused in form.errors.as_data().items():
        if name == NON_FIELD_ERRORS:
            continue
        field = form.fields.get(name)
        form.errors[name] = form.error_class(
            [form_wording(field, error, given=name in data) for error in refused],
            renderer=form.renderer,
            field_id=form[name].auto_id,  # the id each field's aria-describedby names
        )


def _field_errors(data: Any, prefix: str = "") -> list[dict[str, Any]]:
    """Flatten DRF's nested validation detail into `[{"parameter", "detail"}]`, each detail
    worded as every parameter error is (`parameter_wording`)."""
    if isinstance(data, dict):
        errors = []
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if name == "non_field_errors":
                name = "body"
            errors.extend(_field_errors(value, name))
        return errors
    if isinstance(data, list) and all(not isinstance(v, (dict, list)) for v in data):
        return [{"parameter": prefix or "body", "detail": "; ".join(parameter_wording(v) for v in data)}]
    if isinstance(data, list):
        return [e for i, v in enumerate(data) for e in _field_errors(v, f"{prefix}[{i}]")]
    return [{"parameter": prefix or "body", "detail": parameter_wording(data)}]


FORM = "application/x-www-form-urlencoded"


def _media_type_errors(request: Any) -> tuple[list[dict[str, Any]], str]:
    """A 415's `errors` and detail: the `Content-Type` sent and those the view's parsers
    take (`application/json`, and `text/plain` where a raw body is read)."""
    accepted = [parser.media_type for parser in getattr(request, "parsers", None) or []]
    sent = (request.content_type if request is not None else "") or ""
    detail = f"send the body as {' or '.join(accepted)}" if accepted else "this endpoint takes no body"
    error = ParameterError("Content-Type", detail, sent, accepted)
    hint = ""
    if sent.split(";")[0].strip() == FORM and "text/plain" in accepted:
        # `curl --data-binary @train.log URL` sends a form unless told otherwise (walk #9).
        hint = " (curl sends --data-binary as a form unless told: add -H 'Content-Type: text/plain')"
    return [error.as_dict()], f"Unsupported media type {sent!r}: {detail}{hint}."


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler that answers every error in the problem shape.

    Keeps DRF's headers (`Retry-After` on 429, `Allow` on 405); a 429 says which limit
    (`scope`, `rate`) and when to retry (`retry_after` seconds), in the words of MCP's 429
    (`_over_rate`). Unexpected exceptions return None, so Django's 500 handler answers (also
    in the problem shape under /api/).
    """
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = exception_handler(exc, context)
    if response is None:
        return None
    errors: list[dict[str, Any]] | None = None
    extensions: dict[str, Any] | None = None
    wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
    if wait is not None:
        # The proposal door's own rate and words, or the view's rate (DRF's throttle).
        if isinstance(exc, RateExceeded):
            over = OverRate(exc.scope, max(1, int(wait)))
            detail = str(exc.detail)
        else:
            over = OverRate(getattr(context.get("view"), "throttle_scope", "api"), max(1, int(wait)))
            detail = _over_rate(over)
        extensions = over.facts()
    elif isinstance(exc, (InvalidParameters, UnknownResource)):
        errors = [e.as_dict() for e in exc.errors]
        detail = str(exc.detail)
    elif isinstance(exc, exceptions.ValidationError):
        errors = _field_errors(exc.detail)
        detail = "; ".join(f"{e['parameter']}: {e['detail']}" for e in errors)
    elif isinstance(exc, exceptions.ParseError):
        detail = str(exc.detail)
        errors = [{"parameter": "body", "detail": detail}]
    elif isinstance(exc, exceptions.UnsupportedMediaType):
        errors, detail = _media_type_errors(context.get("request"))
    else:
        detail = str(getattr(exc, "detail", exc))
    request = context.get("request")
    response.data = problem_body(
        response.status_code, None, detail, errors, request.path if request else None, extensions
    )
    response.content_type = PROBLEM_CONTENT_TYPE
    response["Cache-Control"] = "no-store"
    return response


def _over_rate(over: OverRate) -> str:
    """A 429's detail: the limit, the work it covers and when to retry."""
    work, counted_with = _RATED_WORK.get(over.scope, (f"{over.scope} requests", "MCP calls"))
    return over.message(work=work, counted_with=counted_with)
