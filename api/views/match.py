"""`POST /api/match`: log text in, ranked cases with the lines that matched out."""

from __future__ import annotations

import json

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import search
from incidents.selectors import is_blank, json_whole_number

from .. import schema, shapes
from ..errors import FieldTooLarge, InvalidParameters, ParameterError, PayloadTooLarge
from ..http import ApiView
from ..params import ParamReader, reject_unknown_keys, without_blank_optionals
from ..parsers import JSONBodyParser, PlainTextParser
from ..serializers import MAX_LOG_CHARS, MAX_MATCH_LIMIT, MatchRequestSerializer, MatchResponseSerializer

# A JSON body's `limit` field and `?limit=` both given, and not the same number.
TWO_LIMITS_DETAIL = "given in the query string ({query}) and in the JSON body ({body}); give it once"


def _clean_text(data: object) -> object:
    """NUL bytes become spaces and lone surrogates `?`: pasted logs carry such garbage, and
    neither may reach the database."""
    if isinstance(data, dict) and isinstance(data.get("text"), str):
        text = data["text"].replace("\x00", " ")
        text = text.encode("utf-8", "replace").decode("utf-8")
        return {**data, "text": text}
    return data


def _media_type(request: Request) -> str:
    return request.content_type.split(";")[0].strip().lower()


def _is_plain(request: Request) -> bool:
    return _media_type(request) == PlainTextParser.media_type


def _query_limit(request: Request) -> str | None:
    """`?limit=5`, the most cases to return, for a body of either type: a `text/plain` body
    is the log alone, and a script that switches to JSON keeps its URL. Read as the JSON
    body's `limit` is (the same checks and wording: a blank value is not given); any other
    parameter, or `limit` twice, is a 400 (`_limit_of` settles a JSON body giving it too).
    A body of another type gets its 415 first, when it is read: `curl --data-binary @job.log
    '/api/match?limit=2'` (curl's form type) is told the content types read, not of `limit`."""
    if _media_type(request) not in ("", PlainTextParser.media_type, JSONBodyParser.media_type):
        return None
    reader = ParamReader(request.query_params, allowed=("limit",))
    limit = reader.single("limit")
    reader.finish()
    return limit


def _limit_of(data: dict, query_limit: str | None) -> dict:
    """`data` (the body as a dict) with `?limit=` (`query_limit`) as its `limit` when the
    body gives none (absent or blank); when both give one, they must be the same number
    (`selectors.json_whole_number`: `5` and `"5"` are), else a 400 on `limit` quoting both."""
    if query_limit is None:
        return data
    body_limit = data.get("limit")
    if body_limit is None or (isinstance(body_limit, str) and is_blank(body_limit)):
        return {**data, "limit": query_limit}
    query_number = json_whole_number(query_limit)
    if query_number is None or query_number != json_whole_number(body_limit):
        shown = json.dumps(body_limit, ensure_ascii=False, default=str)
        detail = TWO_LIMITS_DETAIL.format(query=query_limit, body=shown[:40])
        raise InvalidParameters([ParameterError("limit", detail, query_limit)])
    return data


def _body(request: Request) -> object:
    """The body as the serializer reads it: a `text/plain` body is `{"text": <the log>}`,
    an empty one too (DRF parses no body without content, and "text: is required" would
    name a field the client never sent: it is told what a JSON body's `""` is told)."""
    if _is_plain(request) and "text" not in request.data:
        return {"text": ""}
    return request.data


def _check_log_length(request: Request) -> None:
    """A log over `MAX_LOG_CHARS` characters is too large, 413 (title "Content Too Large",
    as a body over the byte limit), whichever type the body is: a `text/plain` body is the
    log itself, so its detail says the limit and the length received (not a 400 on a `text`
    field the client never sent); a JSON body's names its `text` field in `errors`
    (`must be at most 1,000,000 characters long (got 1,000,001)`)."""
    text = request.data.get("text") if isinstance(request.data, dict) else None
    if not isinstance(text, str) or len(text) <= MAX_LOG_CHARS:
        return
    if _is_plain(request):
        raise PayloadTooLarge(
            f"A text/plain body is the log itself, of at most {MAX_LOG_CHARS:,} characters; "
            f"this one has {len(text):,}."
        )
    raise FieldTooLarge(
        [ParameterError("text", f"must be at most {MAX_LOG_CHARS:,} characters long (got {len(text):,})")]
    )


class MatchView(ApiView):
    """`POST /api/match`: `search.match_log` over the posted text (`MatchResponseSerializer`);
    `limit` by the rule of every JSON door (`selectors.json_whole_number`: `5` or `"5"`, as
    MCP tools read integers; a blank string is not given), in the body or the query string
    (`_query_limit`, `_limit_of`: both only if the same number); 400 for a bad body naming the
    field and what would work (a key it does not read included), 413 over
    `DATA_UPLOAD_MAX_MEMORY_SIZE` or for a log over `MAX_LOG_CHARS` characters, plain or JSON
    (`_check_log_length`), 415 for a body neither JSON nor `text/plain` or in a charset that is
    no text encoding (a plain body is the log itself; both are decoded by
    `api.parsers.decode_body`)."""

    throttle_scope = "api-heavy"
    parser_classes = [JSONBodyParser, PlainTextParser]

    @extend_schema(
        operation_id="match_create",
        summary="Find the cases a log points at",
        description=(
            "Send pasted log text (a traceback, NCCL or kernel log, dmesg, Slurm output) as "
            '`{"text": "...", "limit": 10}` (`limit` a whole number, or its digits as text, `"10"`, '
            'as MCP\'s match_log takes it; `""` is no limit given), or as a raw `text/plain` body '
            "(`curl --data-binary @job.log -H 'Content-Type: text/plain'`), its `limit` then in the "
            "query string (`/api/match?limit=5`, checked as the JSON field is; a JSON body may take it "
            "there too, when the body gives none or the same number), in the charset its "
            "`Content-Type` names, else its byte-order mark's (UTF-16 and UTF-32 have one), else "
            "UTF-8 (undecodable bytes of a plain body without a charset read as U+FFFD); get published "
            "cases ranked by the failure "
            "signatures found in it, each with the lines that matched which term, and the error "
            "codes the text shows (`error_codes`, by the patterns of /api/codes/). Read-only "
            "(POST only because logs are long). Counted against the `api-heavy` rate; a "
            f"body over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes, or a log over "
            f"{MAX_LOG_CHARS:,} characters (a `text/plain` body or the JSON `text`), is refused "
            "with 413 (Content Too Large) saying its length."
        ),
        request={"application/json": MatchRequestSerializer, "text/plain": OpenApiTypes.STR},
        # Declared so that a generated client offers it: the prose alone did not.
        parameters=[
            OpenApiParameter(
                "limit",
                OpenApiTypes.INT,
                required=False,
                description=(
                    f"Most cases to return, 1 to {MAX_MATCH_LIMIT} (default 10): a `text/plain` body's "
                    "limit, or a JSON body's when the body gives none (given in both, they must be the "
                    "same number, else 400)."
                ),
            )
        ],
        responses={
            200: OpenApiResponse(MatchResponseSerializer, "Matching cases, best first."),
            (413, schema.PROBLEM): schema.problem(
                "The request body is too large, or the log too long (a `text/plain` body or the JSON "
                "`text`): the limit and the length received."
            ),
            (415, schema.PROBLEM): schema.problem(
                "The body is neither `application/json` nor `text/plain`, or its charset is no text encoding."
            ),
            **schema.error_responses(
                bad_request="Malformed JSON, bytes that are not text in the charset named, a missing "
                "or empty `text`, `limit` out of range or given in the query string and the body as "
                "different numbers, an unknown key, or a query parameter other than `limit`."
            ),
        },
        examples=[
            OpenApiExample(
                "NCCL watchdog timeout",
                request_only=True,
                value={
                    "text": "[Rank 3] Watchdog caught collective operation timeout: "
                    "WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 milliseconds",
                    "limit": 5,
                },
            )
        ],
    )
    def post(self, request: Request) -> Response:
        query_limit = _query_limit(request)
        length = request.META.get("CONTENT_LENGTH") or "0"
        if length.isascii() and length.isdigit() and int(length) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            raise PayloadTooLarge(
                f"The body may hold at most {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes; "
                f"this one has {int(length):,}."
            )
        reject_unknown_keys(request.data, MatchRequestSerializer().fields)  # a plain body is {"text": ...}
        _check_log_length(request)
        fields = MatchRequestSerializer().fields
        data = _clean_text(_body(request))
        if isinstance(data, dict):
            data = _limit_of(data, query_limit)
        body = MatchRequestSerializer(data=without_blank_optionals(data, fields))
        body.is_valid(raise_exception=True)
        reading = search.read_log(body.validated_data["text"], limit=body.validated_data["limit"])
        return Response(
            MatchResponseSerializer(
                {
                    "results": [shapes.log_hit(hit, request) for hit in reading.hits],
                    "reading": shapes.log_reading(reading),
                    "error_codes": [shapes.found_error_code(code, request) for code in reading.error_codes],
                }
            ).data
        )
