"""What the write endpoints share: token authentication, the editor role, case versions
for `If-Match`, and turning editorial errors into problem documents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework.authentication import BaseAuthentication, TokenAuthentication
from rest_framework.exceptions import APIException, PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.schemas.inspectors import ViewInspector

from incidents import workflow
from incidents.line_endings import unix_newlines
from incidents.models import Case
from incidents.problems import CaseImportError

from . import http
from .errors import InvalidParameters, ParameterError


class IsEditorForWrites(BasePermission):
    """Reads are open; writes need a signed-in user with the editor role (403 otherwise;
    anonymous writes get 401 from the token authentication)."""

    message = "writing cases needs the editor role"

    def has_permission(self, request: Any, view: Any) -> bool:
        if request.method in SAFE_METHODS or not hasattr(view, request.method.lower()):
            return True  # reads are open; a method the view lacks is a 405, not a 401
        if request.user is None or not request.user.is_authenticated:
            return False
        return workflow.is_editor(request.user)


class ReadsNeedNoToken(AutoSchema):
    """The OpenAPI side of `IsEditorForWrites`: a token is optional on reads."""

    def get_auth(self) -> list[dict[str, Any]]:
        auths = super().get_auth()
        if self.method in SAFE_METHODS and {} not in auths:
            auths.append({})
        return auths


class WriteAuthentication:
    """Mixed into views that accept writes: DRF's token authentication (`Authorization:
    Token <key>`, keys from `manage.py createeditor`) and the editor check."""

    schema: ViewInspector | None = ReadsNeedNoToken()
    authentication_classes: Sequence[type[BaseAuthentication]] = [TokenAuthentication]
    permission_classes: Sequence[Any] = [IsEditorForWrites]


# Why an editor made a write, for the history row (as the admin's "Reason for this change"
# field). A header because PUT and PATCH bodies are the case document itself, which has no
# room for it; percent-encoded UTF-8 (as Discord's `X-Audit-Log-Reason`) because a header
# holds only ASCII, so any text, line breaks included, fits.
REASON_HEADER = "X-Change-Reason"
REASON_MAX_CHARS = 2000
CHANGE_REASON = OpenApiParameter(
    REASON_HEADER,
    str,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "Why you make this change, stored on the case's history entry and shown by "
        "`GET /api/cases/{id}/history` and the history page; percent-encoded UTF-8 "
        "(`Fix%20the%20date%0Aper%20the%20source` for two lines), at most "
        f"{REASON_MAX_CHARS} characters once decoded. Without it the entry names the "
        "method (`PATCH through the API`). A write that changes nothing records no entry."
    ),
)


def change_reason(request: Any, body_reason: Any = None) -> str:
    """The editor's reason for a write: the `X-Change-Reason` header, percent-decoded as
    UTF-8, or `body_reason` (the `reason` of a status change or merge body); stripped, line
    breaks as LF; "" when neither is given. Raises InvalidParameters (400 naming the header
    or `reason`) for a header that is not percent-encoded UTF-8, a NUL (which PostgreSQL's
    text cannot hold: the write would fail), a reason over `REASON_MAX_CHARS`, a body reason
    that is not text, or two different reasons given at once."""
    errors: list[ParameterError] = []
    header = request.META.get("HTTP_X_CHANGE_REASON", "")
    from_header = _percent_decoded(header)
    if from_header is None:
        errors.append(ParameterError(REASON_HEADER, "not percent-encoded UTF-8 text", header[:200]))
        from_header = ""
    if body_reason is not None and not isinstance(body_reason, str):
        errors.append(ParameterError("reason", "must be text"))
    from_body = body_reason.strip() if isinstance(body_reason, str) else ""
    for where, text in ((REASON_HEADER, from_header), ("reason", from_body)):
        if "\x00" in text:
            errors.append(ParameterError(where, "holds a NUL character (U+0000), which is not stored"))
    if from_header and from_body and unix_newlines(from_header) != unix_newlines(from_body):
        errors.append(
            ParameterError(REASON_HEADER, "gives another reason than the body's `reason`: send one")
        )
    reason = unix_newlines(from_header or from_body)
    if len(reason) > REASON_MAX_CHARS:
        where = REASON_HEADER if from_header else "reason"
        errors.append(ParameterError(where, f"at most {REASON_MAX_CHARS} characters, got {len(reason)}"))
    if errors:
        raise InvalidParameters(errors)
    return reason


def _percent_decoded(header: str) -> str | None:
    """A header's percent-encoded UTF-8 text, stripped; None when it is not that. A header
    arrives read as Latin-1, so a character past ASCII is a raw byte sent unescaped (UTF-8
    sent raw would be stored as mojibake)."""
    if not header.isascii():
        return None
    try:
        return unquote(header, errors="strict").strip()
    except UnicodeDecodeError:
        return None


class PreconditionFailed(APIException):
    status_code = 412
    default_detail = (
        "the case changed since you read it (or If-Match names no ETag of this case): "
        "fetch it again and redo your change"
    )
    default_code = "precondition_failed"


class PreconditionRequired(APIException):
    status_code = 428
    default_detail = "send If-Match with the ETag of the case you edited (from GET or the last write)"
    default_code = "precondition_required"


class Conflict(APIException):
    status_code = 409
    default_code = "conflict"


def case_etag(request: Any, case: Case) -> str:
    """The quoted ETag of a write answer (`http.stored_case_etag`): the case's own version,
    which `If-Match` checks, with a representation part unlike GET's, since the answer shows
    the case as stored. 2 queries (the store version)."""
    return http.stored_case_etag(request, case.id, case.modified)


def check_if_match(request: Any, case: Case) -> None:
    """428 without `If-Match`, 412 when none of its ETags carries the case's current version
    (`http.case_version`; nothing is written). Only the case's own part is compared: an ETag
    from `GET /api/cases/{id}` (any `fields`) or from a write answer holds until this case
    changes (its document, links, status, a merge into it, a re-derived error code), whatever
    happens to other cases meanwhile. No query (`case.modified` is read with the case)."""
    header = request.META.get("HTTP_IF_MATCH")
    if not header:
        raise PreconditionRequired()
    if header.strip() == "*":
        return
    current = http.case_version(case.id, case.modified)
    if current not in {http.version_in(tag) for tag in header.split(",")}:
        raise PreconditionFailed()


def invalid_document(error: CaseImportError) -> InvalidParameters:
    """Import's problems as a 400 problem document naming each JSON path."""
    return InvalidParameters(
        [ParameterError(problem.path, problem.message, None) for problem in error.problems],
    )


def workflow_error(error: Exception) -> APIException:
    if isinstance(error, workflow.NotAllowed):
        return PermissionDenied(str(error))
    return Conflict(str(error))
