"""`/api/export` (every published case as JSON Lines), `/api/export/vocab` (the vocabulary
as the definitions file `import_cases --vocab` reads) and `/api/changes` (change feed)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from django.http import StreamingHttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from incidents import selectors
from incidents.documents import dumps_document
from incidents.exporting import vocabulary_document

from .. import schema, shapes
from ..http import ApiView, conditional_on_store, streamed
from ..keyset import KeysetPagination
from ..params import reject_all
from ..query import Integer, QueryParams, Text, Timestamp
from ..serializers import ChangesPageSerializer

JSONL_CONTENT_TYPE = "application/jsonl"
EXPORT_LINES_PER_CHUNK = 50
DEFAULT_CHANGES = 100
MAX_CHANGES = 1000
CHANGES_QUERY = QueryParams(
    [
        Timestamp(
            "since",
            "Only cases written after this time (exclusive); ISO 8601, UTC when no offset is given.",
        ),
        Integer(
            "limit",
            "Changes per page, {minimum} to {maximum} (default {default}).",
            default=DEFAULT_CHANGES,
            minimum=1,
            maximum=MAX_CHANGES,
        ),
        Text("cursor", "Position in the feed, from a `next` / `previous` link."),
    ]
)


def export_chunks() -> Iterator[str]:
    """JSON Lines text, `EXPORT_LINES_PER_CHUNK` documents per chunk, in id order."""
    lines = (dumps_document(document, indent=None) + "\n" for document in selectors.published_documents())
    while chunk := "".join(islice(lines, EXPORT_LINES_PER_CHUNK)):
        yield chunk


class ExportView(ApiView):
    """`GET /api/export`: `selectors.published_documents()` as JSON Lines, streamed in chunks of
    `EXPORT_LINES_PER_CHUNK` documents (async under ASGI, so memory stays at one batch)."""

    throttle_scope = "api-heavy"

    @extend_schema(
        operation_id="export_retrieve",
        summary="Every published case as JSON Lines",
        description=(
            "One case document per line (`CaseDocument`, exactly what `manage.py "
            "export_cases` writes, without indentation), in id order, streamed: the server "
            "holds one batch of cases at a time whatever the size of the store. Takes no "
            "query parameters. Counted against the `api-heavy` rate."
        ),
        parameters=schema.CONDITIONAL_HEADERS,
        responses={
            (200, JSONL_CONTENT_TYPE): OpenApiResponse(
                response=OpenApiTypes.STR,
                description="JSON Lines: each line a `CaseDocument` (see the components).",
            ),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(bad_request="A query parameter was given."),
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        reject_all(request.query_params)
        return self.answer(request)

    @conditional_on_store()
    def answer(self, request: Request) -> StreamingHttpResponse:
        # HEAD wants the headers only: do not read the store for a body nobody receives.
        chunks = export_chunks() if request.method == "GET" else iter(())
        response = StreamingHttpResponse(
            streamed(request, chunks), content_type=f"{JSONL_CONTENT_TYPE}; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="incidentlib-cases.jsonl"'
        # The vocabulary the documents name, for `import_cases --vocab` (an empty database
        # knows no term): the body stays one case a line for every existing client.
        response["Link"] = f'<{reverse("api:export-vocab")}>; rel="describedby"; type="application/json"'
        return response


class ExportVocabularyView(ApiView):
    """`GET /api/export/vocab`: `exporting.vocabulary_document()`, the definitions file that
    `manage.py export_cases --vocab` writes, so that `/api/export` imports into an empty
    database: `import_cases --vocab vocab.json export.jsonl`."""

    @extend_schema(
        operation_id="export_vocab_retrieve",
        summary="The vocabulary as an import definitions file",
        description=(
            "Every vocabulary term (topics, symptom tags, root causes, components, workloads, "
            "organizations, accelerators, error codes) in the definitions format `manage.py "
            "import_cases --vocab` reads (`fixtures/vocab.json`'s, what `manage.py export_cases "
            "--vocab` writes): `curl /api/export -o cases.jsonl; curl /api/export/vocab -o "
            "vocab.json; manage.py import_cases --vocab vocab.json cases.jsonl` fills an empty "
            "database. `/api/export` points here in its `Link` header (`rel=describedby`). "
            "Takes no query parameters."
        ),
        parameters=schema.CONDITIONAL_HEADERS,
        responses={
            200: OpenApiResponse(
                response=OpenApiTypes.OBJECT,
                description="Each facet's plural key -> its terms (name, slug, description, ...).",
            ),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(bad_request="A query parameter was given."),
        },
    )
    def get(self, request: Request) -> Response:
        reject_all(request.query_params)
        return self.answer(request)

    @conditional_on_store()
    def answer(self, request: Request) -> Response:
        response = Response(vocabulary_document())
        response["Content-Disposition"] = 'attachment; filename="incidentlib-vocab.json"'
        return response


class ChangesView(ApiView):
    """`GET /api/changes`: `selectors.case_changes(since=...)` paged by an opaque cursor on
    (`modified`, `id`) (`keyset.KeysetPagination`, `ChangesPageSerializer`); `modified` in UTC."""

    @extend_schema(
        operation_id="changes_list",
        summary="Change feed for mirrors",
        description=(
            "Ids of published and retracted cases with the time each was last written, "
            "newest first, `limit` per page with `next` links to older changes. A mirror "
            "asks with `since` set to the newest `modified` it has seen and fetches each "
            "listed case again (`url`); a retraction arrives as a change with status "
            "`retracted`, a merge with status `merged` and `merged_into` (the kept case is "
            "listed too). Drafts never appear. Keep a few seconds of overlap: a long import "
            "commits all of its cases at once. The opaque `cursor` of a `next` / `previous` "
            "link holds the time and id of the row the page starts after, so a case saved "
            "while a mirror pages (it moves to the top) makes it miss no other, even among "
            "cases sharing one time."
        ),
        parameters=[
            *CHANGES_QUERY.openapi(),
            *schema.CONDITIONAL_HEADERS,
        ],
        responses={
            200: OpenApiResponse(ChangesPageSerializer, "Changes, newest first."),
            304: schema.NOT_MODIFIED,
            **schema.error_responses(
                bad_request="Unknown parameter, malformed `since`, bad `cursor` or `limit` out of range."
            ),
        },
    )
    def get(self, request: Request) -> Response:
        # `cursor` is read (once, else 400) here and decoded by `KeysetPagination`.
        values = CHANGES_QUERY.parse(request.query_params)
        return self.answer(request, since=values["since"], limit=values["limit"])

    @conditional_on_store()
    def answer(self, request: Request, *, since, limit: int) -> Response:
        paginator = KeysetPagination(limit)
        rows = paginator.paginate_queryset(selectors.case_changes(since=since), request, view=self)
        return Response(
            ChangesPageSerializer(
                {
                    "next": paginator.get_next_link(),
                    "previous": paginator.get_previous_link(),
                    "results": [shapes.change(row, request) for row in rows],
                }
            ).data
        )
