"""Write endpoints for editors (token auth): create, replace (PUT), patch (PATCH), change
status, merge. Every write is `services.save_case_document` (import's validation and
writing), `services.change_status` or `services.merge_cases`; `If-Match` with an ETag of the
case guards against lost updates: it holds while the case itself is unchanged, whatever
other cases do (`editing.check_if_match`; stale: 412, nothing written). The check and the
write run in one transaction holding the case write lock (`services.writing_cases`).

A write answers the case as stored (every hand-made link), where GET shows the published
links: its `ETag` carries the same case version as GET's, so either works as `If-Match`, and
differs from GET's in the rest, as the two bodies differ (`http.stored_case_etag`). Its
`warnings` name the cases the written one looks like (`duplicates.duplicates_of_case`) after
a document write or a publish, as import, the admin and a proposal's Accept do.
"""

from __future__ import annotations

import copy
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors, workflow
from incidents.documents import case_document
from incidents.models import Case
from incidents.problems import CaseImportError
from incidents.selectors.lookup import KeptCaseProblem, case_to_keep

from .. import schema, shapes
from ..editing import (
    CHANGE_REASON,
    Conflict,
    WriteAuthentication,
    case_etag,
    change_reason,
    check_if_match,
    invalid_document,
    workflow_error,
)
from ..editorial_serializers import CaseWrittenSerializer, MergeRequestSerializer, StatusChangeSerializer
from ..errors import ParameterError, UnknownResource
from ..http import ApiView
from ..params import reject_unknown_keys
from ..parsers import MergePatchParser

# `incidents.services` is imported by the views that write: it brings the search modules
# (numpy, scipy), and this module is read with the URLs by every process at start-up.

DOCUMENT_REF = {"application/json": {"$ref": "#/components/schemas/CaseDocument"}}
CASE_ID = OpenApiParameter(
    "case_id", str, OpenApiParameter.PATH, description="The exact id of the case, e.g. `IL-0428`."
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description=(
        "An `ETag` of this case, from `GET /api/cases/{id}` or from the answer to the last write. "
        "It holds until the case itself changes (its document, links or status, a merge into it); "
        "writes to other cases and new proposals leave it valid. 412 when the case changed since."
    ),
)


# A write answer: the case as stored, which is not what GET shows (`http.stored_case_etag`).
AS_STORED = (
    "The case as stored (every hand-made `related` link, where GET lists published cases only), "
    "with an `ETag` for the next write's `If-Match`: the same case version as GET's ETag, another "
    "representation (`If-None-Match` on GET does not match it). `warnings` names the cases it "
    "looks like (same source URL, near-identical text) after a create, a replace or patch and a "
    "move to published, as import, the admin and a proposal's Accept warn; the write is made."
)


def write_responses(ok: int, description: str) -> dict[Any, OpenApiResponse]:
    problem = schema.problem
    return {
        ok: OpenApiResponse(CaseWrittenSerializer, description),
        (400, schema.PROBLEM): problem(
            "The document fails the case schema or import's checks (each JSON path named)."
        ),
        (401, schema.PROBLEM): problem("No or an invalid `Authorization: Token <key>` header."),
        (403, schema.PROBLEM): problem(
            "The account lacks the editor role (or the reviewer role this needs)."
        ),
        (404, schema.PROBLEM): problem("No case has this id."),
        (409, schema.PROBLEM): problem("The workflow does not allow this (e.g. a merged case)."),
        (412, schema.PROBLEM): problem(
            "The case changed since the `If-Match` ETag was read (or it is no ETag of this case): "
            "nothing was written."
        ),
        (428, schema.PROBLEM): problem("`If-Match` is missing."),
        **schema.error_responses(),
    }


def _document_body(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise ParseError("the body must be a JSON object (a case document)")
    return copy.deepcopy(dict(request.data))


def _editable_case(case_id: str) -> Case:
    case = Case.objects.with_document().filter(id=case_id).first()
    if case is None:
        # Another spelling of an id (`IL-428`): a GET redirects to the stored one, but a write
        # is not redirected (a client may resend it as a GET); it names the id meant.
        stored = selectors.stored_case_id(case_id)
        if stored is not None:
            raise UnknownResource(
                f"No case with id {case_id!r}: the case is {stored}; write to it by that id.",
                [ParameterError("case_id", f"the id is spelt {stored}", case_id, [stored])],
            )
        raise NotFound(f"No case with id {case_id!r}.")
    if case.status == Case.Status.MERGED:
        raise Conflict(f"{case_id} was merged into {case.merged_into_id}; edit that case")
    return case


def _saved(request: Request, case_id: str, status: int = 200, *, warn: bool = False) -> Response:
    """The case as stored (`CaseWrittenSerializer`), with the write answer's `ETag`
    (`editing.case_etag`). `warn`: its `warnings` name the cases it looks like
    (`duplicates.duplicates_of_case`, as an admin save and a proposal's Accept warn);
    otherwise `warnings` is empty."""
    case = Case.objects.with_document().get(id=case_id)
    answer = shapes.case_detail(selectors.record_of(case, as_stored=True), request)
    answer["warnings"] = _duplicate_warnings(request, case_id) if warn else []
    response = Response(CaseWrittenSerializer(answer).data, status=status)
    response["ETag"] = case_etag(request, case)
    if status == 201:
        response["Location"] = request.build_absolute_uri(reverse("api:case-detail", args=[case.id]))
    return response


def _duplicate_warnings(request: Request, case_id: str) -> list[dict[str, str]]:
    """The `warnings` of a write of `case_id`: one per case it looks like, in the words the
    admin uses (`Duplicate.warning`) with that case's id, title, page and the reason."""
    from incidents import duplicates

    return [
        {
            "detail": found.warning(case_id),
            "id": found.case_id,
            "title": found.title,
            "url": request.build_absolute_uri(reverse("incidents:case-detail", args=[found.case_id])),
            "reason": found.reason,
        }
        for found in duplicates.duplicates_of_case(case_id)
    ]


def _save(request: Request, document: dict[str, Any], reason: str) -> None:
    from incidents import services

    try:
        services.save_case_document(document, user=request.user, reason=reason, where="body")
    except CaseImportError as error:
        raise invalid_document(error) from None


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7396 JSON Merge Patch: objects merge key by key, null removes, the rest replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


class CaseCreateMixin(WriteAuthentication):
    """`POST /api/cases/`: a new case from a whole document."""

    @extend_schema(
        operation_id="cases_create",
        summary="Create a case (editors)",
        description=(
            "A whole case document (`CaseDocument`); without `id` the next free id is given. "
            "Editors create drafts or cases in review, reviewers may create published ones. "
            "Validated exactly as `import_cases` validates a file. Answers the case as stored with an "
            "`ETag` that later writes send in `If-Match`."
        ),
        request=DOCUMENT_REF,
        parameters=[CHANGE_REASON],
        responses=write_responses(201, AS_STORED),
    )
    def post(self, request: Request) -> Response:
        from incidents import services

        document = _document_body(request)
        document.setdefault("id", services.next_case_id())
        document.setdefault("status", Case.Status.DRAFT)
        try:
            workflow.check_create_status(request.user, str(document["status"]))
        except workflow.NotAllowed as error:
            raise workflow_error(error) from None
        if Case.objects.filter(id=document["id"]).exists():
            raise Conflict(f"{document['id']} exists already: PUT or PATCH it, or leave `id` out")
        _save(request, document, reason=change_reason(request) or "created through the API")
        return _saved(request, document["id"], status=201, warn=True)


class CaseUpdateMixin(WriteAuthentication):
    """`PUT` and `PATCH /api/cases/{id}`: replace or patch a case's document."""

    def initialize_request(self, request: Any, *args: Any, **kwargs: Any) -> Request:
        # A PATCH body may come as RFC 7396's `application/merge-patch+json` (the schema
        # names it); no other method of the view takes that type.
        self._patching = request.method == "PATCH"
        return super().initialize_request(request, *args, **kwargs)  # type: ignore[misc]

    def get_parsers(self) -> list[Any]:
        parsers = list(super().get_parsers())  # type: ignore[misc]
        return [*parsers, MergePatchParser()] if getattr(self, "_patching", False) else parsers

    def _update(self, request: Request, case_id: str, build) -> Response:
        from incidents import services

        reason = change_reason(request) or f"{request.method} through the API"
        with services.writing_cases():
            case = _editable_case(case_id)
            check_if_match(request, case)
            current = dict(case_document(case))
            document = build(current)
            if not isinstance(document, dict):
                raise ParseError("the result must be a JSON object (a case document)")
            if document.get("id", case_id) != case_id:
                raise Conflict("`id` cannot change: a case keeps its id")
            document["id"] = case_id
            if document.get("status", case.status) != case.status:
                raise Conflict(f"change the status with POST {reverse('api:case-status', args=[case_id])}")
            document["status"] = case.status
            sent = document.get("related")
            if isinstance(sent, list) and all(isinstance(item, str) for item in sent):
                # Built from GET, which shows published links only: keep the ones it hides.
                document["related"] = selectors.related_to_store(case, sent)
            _save(request, document, reason=reason)
        return _saved(request, case_id, warn=True)

    @extend_schema(
        operation_id="cases_update",
        summary="Replace a case (editors)",
        description="The whole new document; `status` must stay as it is (see `/status`).",
        request=DOCUMENT_REF,
        parameters=[CASE_ID, IF_MATCH, CHANGE_REASON],
        responses=write_responses(200, AS_STORED),
    )
    def put(self, request: Request, case_id: str) -> Response:
        body = _document_body(request)
        return self._update(request, case_id, lambda current: body)

    @extend_schema(
        operation_id="cases_partial_update",
        summary="Patch a case (editors)",
        description=(
            "A JSON Merge Patch (RFC 7396) over the case document: objects merge, `null` removes a key."
        ),
        request={"application/merge-patch+json": {"type": "object"}, "application/json": {"type": "object"}},
        parameters=[CASE_ID, IF_MATCH, CHANGE_REASON],
        responses=write_responses(200, AS_STORED),
    )
    def patch(self, request: Request, case_id: str) -> Response:
        body = _document_body(request)
        return self._update(request, case_id, lambda current: merge_patch(current, body))


class CaseStatusView(WriteAuthentication, ApiView):
    """`POST /api/cases/{id}/status`: move a case along the workflow (`workflow.TRANSITIONS`)."""

    @extend_schema(
        operation_id="cases_status",
        summary="Change a case's status (editors, reviewers)",
        description=(
            "draft -> in_review and back (editors); in_review -> published and published -> "
            "retracted with a `reason` (reviewers). One step a write: a draft is published by two "
            "writes, in_review then published (the second with the first answer's ETag). Other "
            "moves are 409, naming the step the case can take."
        ),
        request=StatusChangeSerializer,
        parameters=[CASE_ID, IF_MATCH, CHANGE_REASON],
        responses=write_responses(200, AS_STORED),
    )
    def post(self, request: Request, case_id: str) -> Response:
        from incidents import services

        body = _document_body(request)
        reject_unknown_keys(body, StatusChangeSerializer().fields)
        target = body.get("status")
        if target not in Case.Status.values or not isinstance(body.get("reason") or "", str):
            raise ParseError("`status` must be one of draft, in_review, published, retracted; `reason` text")
        reason = change_reason(request, body.get("reason"))
        with services.writing_cases():
            case = _editable_case(case_id)
            check_if_match(request, case)
            try:
                services.change_status(case_id, target, user=request.user, reason=reason)
            except (workflow.WorkflowError, workflow.NotAllowed) as error:
                raise workflow_error(error) from None
            except ValueError as error:
                raise ParseError(str(error)) from None
        return _saved(request, case_id, warn=target == Case.Status.PUBLISHED)


class CaseMergeView(WriteAuthentication, ApiView):
    """`POST /api/cases/{id}/merge`: merge this duplicate into `into` (reviewers)."""

    @extend_schema(
        operation_id="cases_merge",
        summary="Merge a duplicate into another case (reviewers)",
        description="This case's id redirects to `into` from then on and is never reused.",
        request=MergeRequestSerializer,
        parameters=[CASE_ID, IF_MATCH, CHANGE_REASON],
        responses=write_responses(200, f"The kept case. {AS_STORED}"),
    )
    def post(self, request: Request, case_id: str) -> Response:
        from incidents import services

        body = _document_body(request)
        reject_unknown_keys(body, MergeRequestSerializer().fields)
        kept = body.get("into")
        if not isinstance(kept, str) or not isinstance(body.get("reason") or "", str):
            raise ParseError("`into` must be the id of the case to keep")
        reason = change_reason(request, body.get("reason"))
        with services.writing_cases():
            case = _editable_case(case_id)
            check_if_match(request, case)
            try:
                # `il-0431` and `IL0431` as the case URLs take them; a merged id names its kept case.
                kept = case_to_keep(kept)
            except KeptCaseProblem as problem:
                raise (NotFound(str(problem)) if problem.unknown else Conflict(str(problem))) from None
            try:
                services.merge_cases(case_id, kept, user=request.user, reason=reason)
            except (workflow.WorkflowError, workflow.NotAllowed) as error:
                raise workflow_error(error) from None
            except Case.DoesNotExist as error:
                raise NotFound(str(error)) from None
        return _saved(request, kept)
