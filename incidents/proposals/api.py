"""`POST /api/proposals/`, `GET /api/proposals/{token}`, `GET /api/proposals/lookalikes`."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import APIException, NotFound, ParseError
from rest_framework.request import Request
from rest_framework.response import Response

from api import schema
from api.editorial_serializers import LookalikesSerializer, ProposalStatusSerializer
from api.errors import InvalidParameters, ParameterError, RateExceeded, form_errors
from api.http import ApiView
from api.params import unknown_keys
from api.query import QueryParams, Repeated, Text
from incidents import search, selectors
from incidents.models import Facet, Term
from incidents.problems import CaseImportError

from .forms import MAX_TEXT, MAX_URLS, ProposalForm
from .models import Proposal
from .receive import RateLimited, check_refusals, note_refused, receive

MAX_LOOKALIKES = 5
LOOKALIKES_QUERY = QueryParams(
    [
        Text("title", "At most 300 characters.", max_length=300),
        Text("text", "At most 5000 characters.", max_length=5000),
        # Only the first ten URLs of at most 2000 characters are looked up.
        Repeated("url", "Source URLs.", max_length=2000, max_items=10),
    ]
)


# The body's fields are the form's but its honeypot (`website`, for bots filling in the HTML
# form); each is a string, and `source_urls` may also be a list of strings (one URL each).
# The schema's properties are the keys the endpoint reads: any other is a 400 naming it.
LIST_FIELDS = {"source_urls"}
REQUEST_SCHEMA = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": list(Proposal.Kind.values), "description": "new or correction."},
        "title": {
            "type": "string",
            "maxLength": 300,
            "description": "What broke (10 to 300 characters); a correction may leave it out.",
        },
        "text": {
            "type": "string",
            "maxLength": MAX_TEXT,
            "description": "What happened (new case) or what is wrong (correction).",
        },
        "source_urls": {
            "oneOf": [
                {"type": "string", "description": "One http(s) URL per line."},
                {"type": "array", "items": {"type": "string"}, "maxItems": MAX_URLS},
            ],
            "description": (
                f"Public sources, at most {MAX_URLS}; needed for a new case, optional for a correction."
            ),
        },
        "case_id": {"type": "string", "maxLength": 12, "description": "Correction: the case, e.g. IL-0428."},
        "organization": {
            "type": "string",
            "maxLength": 200,
            "description": "New case: as the vocabulary names it, or any other name (a reviewer maps it).",
        },
        "published": {"type": "string", "description": "New case: the source's date, YYYY-MM-DD (past)."},
        "topic": {"type": "string", "description": "New case: a topic's slug, name or synonym."},
        "root_cause": {
            "type": "string",
            "description": "New case, optional: a root-cause category's slug, name or synonym.",
        },
        "contact": {"type": "string", "maxLength": 200, "description": "Optional e-mail address."},
    },
    # A new case's other fields are checked by the form (`ProposalForm.clean`), which says
    # which are needed for it; a correction needs only `case_id` and `text`.
    "required": ["kind", "text"],
}


def proposal_body(proposal: Proposal, request: Request) -> dict:
    return {
        "status": proposal.status,
        "kind": proposal.kind,
        "title": proposal.title,
        "case": proposal.case_id
        if proposal.status == Proposal.Status.ACCEPTED or proposal.kind == "correction"
        else None,
        "decline_reason": proposal.decline_reason or None,
        "status_url": request.build_absolute_uri(proposal.get_absolute_url()),
        "url": request.build_absolute_uri(reverse("api:proposal-status", args=[proposal.token])),
        "lookalikes": proposal.lookalikes,
    }


class ProposalCreateView(ApiView):
    """`POST /api/proposals/`: the proposal form's fields as JSON (`ProposalForm`), the keys of
    `REQUEST_SCHEMA` only (an unknown key is a 400 naming it, as on `/api/triage`, with the
    body's other errors); a new
    case or, with `kind: correction` and `case_id`, a correction. 201 with the status."""

    @extend_schema(
        operation_id="proposals_create",
        summary="Propose a new case or a correction",
        description=(
            "Anyone may propose. A new case: `kind: new`, `title`, `text`, `source_urls` (one per "
            "line or a list), `organization`, `published`, `topic` (slug) and optionally "
            "`root_cause` (slug). A correction: `kind: correction`, `case_id` and `text` (what is "
            "wrong), optionally `title` and `source_urls`. Every value is a string (`source_urls` "
            "may be a list of strings). Plain "
            "text only (no HTML), bounded sizes. A key not listed here is refused (400 naming it, "
            "with the closest accepted key), never ignored. Per client address, only proposals "
            "received count against the proposal rate (`PROPOSAL_THROTTLE_RATE`, 10/hour); refused "
            "ones have their own, larger rate (`PROPOSAL_REFUSED_THROTTLE_RATE`, 60/hour). Answers "
            "the private `status_url`."
        ),
        request={"application/json": REQUEST_SCHEMA},
        responses={
            201: OpenApiResponse(ProposalStatusSerializer, "Received."),
            **schema.error_responses(
                bad_request="A field is missing, too long, HTML or not a URL; an unknown key (with "
                "the closest accepted one)."
            ),
        },
    )
    def post(self, request: Request) -> Response:
        try:
            check_refusals(request)
            proposal = self._receive(request)
        except RateLimited as limited:
            raise RateExceeded(limited.wait, scope=limited.scope, detail=f"{limited.what}.") from None
        return Response(proposal_body(proposal, request), status=201)

    def _receive(self, request: Request) -> Proposal:
        """The proposal of the body, received (`receive`: counted against the proposal
        rate); a body refused (a 4xx) is counted as refused."""
        try:
            return self._read(request)
        except APIException:
            note_refused(request)
            raise

    def _read(self, request: Request) -> Proposal:
        if not isinstance(request.data, dict):
            raise ParseError("the body must be a JSON object")
        # Every bad field is named in one answer (the README's "naming each bad parameter"):
        # a field refused before the form reads the body (a JSON type the form cannot read, a
        # value no column can store, an unknown term) is left out of what the form reads, and
        # the form's own errors for it ("needed for a new case") are not added.
        # A misspelled key (`source_url`, `caseid`) must not yield a proposal without it: it
        # is named with the others, and the form's errors for the key it may mean are left
        # out (a misspelled `source_url` would add a misleading "source_urls: give at least
        # one public source URL").
        strange = unknown_keys(request.data, REQUEST_SCHEMA["properties"])
        data = {key: value for key, value in request.data.items() if key in REQUEST_SCHEMA["properties"]}
        meant = [name for error in strange for name in error.suggestions if name not in data]
        refused = _mistyped(data)
        # JSON can spell a lone surrogate (`"\ud800"`), which no text column, template or
        # answer can encode, and a NUL, which PostgreSQL text refuses (even in a lookup):
        # refuse them by name before anything reads the value.
        for error in refused:
            del data[error.parameter]
        for name, value in list(data.items()):
            if problem := _unstorable(str(name)) or _unstorable_value(value):
                shown = str(name).encode("utf-8", "replace").decode().replace("\x00", "\\0")
                refused.append(ParameterError(shown, problem))
                del data[name]
        if isinstance(data.get("source_urls"), list):
            data["source_urls"] = "\n".join(str(u) for u in data["source_urls"])
        # A term named as the list filters read it (slug, name or synonym), refused in their
        # words with the nearest terms (`selectors.term_value`), not the form's "Select a valid
        # choice".
        for name, facet in (("topic", Facet.TOPIC), ("root_cause", Facet.ROOT_CAUSE)):
            if data.get(name):
                slug, unknown = selectors.term_value(facet, name, data[name])
                if unknown is not None or slug is None:
                    detail = unknown.detail if unknown else f"unknown {name}"
                    near = [c.value for c in unknown.suggestions] if unknown else []
                    refused.append(ParameterError(name, detail, data.pop(name), near))
                    continue
                data[name] = Term.objects.of(facet).get(slug=slug).pk
        form = ProposalForm(data)
        valid = form.is_valid()
        skip = [e.parameter for e in refused] + meant
        errors = strange + refused + ([] if valid else form_errors(form, data, skip=skip))
        if errors:
            order = list(ProposalForm.base_fields)
            raise InvalidParameters(
                sorted(errors, key=lambda e: order.index(e.parameter) if e.parameter in order else -1)
            )
        try:
            return receive(request, form.cleaned_data)
        except CaseImportError as error:
            raise InvalidParameters([ParameterError(p.path, p.message) for p in error.problems]) from None


class ProposalStatusView(ApiView):
    """`GET /api/proposals/{token}`: where one proposal stands."""

    @extend_schema(
        operation_id="proposals_retrieve",
        summary="A proposal's status (private link)",
        description="The status a proposer follows with the token from the answer to `POST /api/proposals/`.",
        parameters=[
            OpenApiParameter("token", str, OpenApiParameter.PATH, description="The proposal's private token.")
        ],
        responses={
            200: OpenApiResponse(ProposalStatusSerializer, "The status."),
            **schema.error_responses(not_found="No such proposal."),
        },
    )
    def get(self, request: Request, token: str) -> Response:
        proposal = Proposal.objects.filter(token=token).first()
        if proposal is None:
            raise NotFound("No proposal at this address.")
        response = Response(proposal_body(proposal, request))
        response["Cache-Control"] = "private, no-store"
        return response


class LookalikesView(ApiView):
    """`GET /api/proposals/lookalikes?title=&text=&url=`: existing cases a proposal may
    duplicate (same source URL, near-identical text: `duplicates.find_lookalikes`) and
    published cases the search engine finds for the title (`search_cases`)."""

    @extend_schema(
        operation_id="proposals_lookalikes",
        summary="Existing cases that look like a proposal being typed",
        description=(
            "What the proposal form shows while typing: possible duplicates (a source URL a case cites, "
            "near-identical text) and published cases the search engine finds for the title."
        ),
        parameters=[
            *LOOKALIKES_QUERY.openapi(),
        ],
        responses={
            200: OpenApiResponse(LookalikesSerializer, "Possible duplicates, then similar cases."),
            **schema.error_responses(bad_request="A parameter is unknown or too long."),
        },
    )
    def get(self, request: Request) -> Response:
        # Here, not at the top: `duplicates` brings the search modules (numpy, scipy), and this
        # module is imported with the URLs by every process at start-up.
        from incidents import duplicates

        values = LOOKALIKES_QUERY.parse(request.query_params)
        title, text, urls = values["title"] or "", values["text"] or "", values["url"]
        found = duplicates.find_lookalikes(urls=urls, text=f"{title}\n{text}" if (title or text) else "")
        known = {d.case_id for d in found}
        similar = []
        if title.strip():
            for hit in search.search_cases(query=title, limit=MAX_LOOKALIKES).hits:
                if hit.case.id not in known:
                    similar.append(
                        {"id": hit.case.id, "title": hit.case.title, "url": _html(request, hit.case.id)}
                    )
        return Response(
            {
                "duplicates": [
                    {"id": d.case_id, "title": d.title, "reason": d.reason, "url": _html(request, d.case_id)}
                    for d in found
                ],
                "similar": similar,
            }
        )


def _mistyped(data: dict[str, Any]) -> list[ParameterError]:
    """A ParameterError for each form field whose JSON value is not a string (or, for
    `source_urls`, a list of strings)."""
    errors: list[ParameterError] = []
    for name in ProposalForm.base_fields:
        if name not in data or isinstance(data[name], str):
            continue
        value = data[name]
        if name in LIST_FIELDS:
            if not isinstance(value, list):
                errors.append(
                    ParameterError(name, f"must be a string or a list of strings, not {_json_type(value)}")
                )
            elif wrong := [item for item in value if not isinstance(item, str)]:
                errors.append(ParameterError(name, f"must list strings, not {_json_type(wrong[0])}"))
        else:
            errors.append(ParameterError(name, f"must be a string, not {_json_type(value)}"))
    return errors


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def _unstorable_value(value: object) -> str | None:
    """Why a string, or a string in a list, cannot be stored or shown, or None."""
    texts = value if isinstance(value, list) else [value]
    return next((problem for text in texts if isinstance(text, str) and (problem := _unstorable(text))), None)


def _unstorable(text: str) -> str | None:
    """Why `text` cannot be stored or shown, or None."""
    if "\x00" in text:
        return "contains a NUL character (\\0), which no value can hold"
    if any("\ud800" <= c <= "\udfff" for c in text):
        return "contains a lone surrogate, which is not a character"
    return None


def _html(request: Request, case_id: str) -> str:
    return request.build_absolute_uri(reverse("incidents:case-detail", args=[case_id]))
