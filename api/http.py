"""HTTP behaviour shared by every API view: JSON only, caching headers, conditional GET,
and streaming that stays constant-memory under ASGI (throttling: `api.throttling`).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.decorators import method_decorator
from django.views.decorators.http import condition
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from incidents import selectors, store_cache

T = TypeVar("T", str, bytes)

# Part of every ETag: bump it when a response shape changes, so cached copies revalidate.
RESPONSE_FORMAT = "1"


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """The API speaks JSON whatever the `Accept` header says (never a 406)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ApiView(APIView):
    """Base of every API view.

    Successful GET/HEAD answers (200 and 304) may be cached by anyone for
    `API_CACHE_MAX_AGE` seconds and then revalidated; everything else is `no-store`.
    """

    content_negotiation_class = JSONOnlyNegotiation
    throttle_scope = "api"

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if request.method in ("GET", "HEAD") and response.status_code in (200, 304):
            patch_cache_control(response, public=True, max_age=settings.API_CACHE_MAX_AGE)
        else:
            # Validators describe a successful representation; a redirect or error has none.
            for header in ("ETag", "Last-Modified"):
                if response.has_header(header) and response.status_code not in (200, 201):
                    del response[header]
            if not response.has_header("Cache-Control"):
                response["Cache-Control"] = "no-store"
        return response


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join((RESPONSE_FORMAT, *parts)).encode()).hexdigest()[:32]


def _store_version(request: Any) -> selectors.StoreVersion:
    """The store version, read once per request (ETag and Last-Modified both need it)."""
    version = getattr(request, "_store_version", None)
    if version is None:
        version = selectors.store_version()
        request._store_version = version
    return version


def _is_conditional(request: Any) -> bool:
    return bool(request.META.get("HTTP_IF_NONE_MATCH") or request.META.get("HTTP_IF_MODIFIED_SINCE"))


def _data_of(answer: HttpResponseBase) -> tuple[Any, list[tuple[str, str]]] | None:
    """What to keep of an API answer: a 200 `Response`'s data and headers, when it sets no
    cookie."""
    if isinstance(answer, Response) and answer.status_code == 200 and not answer.cookies:
        return answer.data, list(answer.items())
    return None


def _response_of(kept: tuple[Any, list[tuple[str, str]]]) -> HttpResponseBase:
    data, headers = kept
    response = Response(data)
    for name, value in headers:
        response[name] = value
    return response


def _kept_answer(method: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """`method`'s 200 answers kept in the shared cache per store generation
    (`store_cache.answer`, with `settings.STORE_CACHE`), under the host, the view and its
    parsed arguments: a repeated request costs two cache reads instead of its queries and
    serializers."""

    @functools.wraps(method)
    def kept(view: APIView, request: Request, **kwargs: Any) -> HttpResponseBase:
        arguments = repr(sorted(kwargs.items()))
        name = "api:" + _digest(request.scheme or "", request.get_host(), type(view).__name__, arguments)
        return store_cache.answer(
            name, lambda: method(view, request, **kwargs), keep=_data_of, restore=_response_of
        )

    return kept


def conditional_on_store(
    *,
    exists: Callable[..., bool] | None = None,
    version: Callable[..., str | None] | None = None,
    keep: bool = False,
) -> Callable:
    """Conditional GET for an answer that depends only on the store (and the URL).

    Decorates the part of a view that runs after its parameters were checked (so a bad
    request is a 400, never a 304). `ETag` (digest of host, full path and store version)
    and `Last-Modified` (newest case modification) cost the 2 queries of
    `selectors.store_version()`; a matching `If-None-Match` / `If-Modified-Since` gets 304
    without running the view. For one resource, `exists(request, **kwargs)` is asked
    first, on conditional requests only: when it does not exist the view runs and answers
    404. Exceptions raised by the view carry no validators (they are added on return).
    `version(request, **kwargs)`, for one case, instead of `exists`: the case's own version
    (`case_version`), None when there is no such case; asked on every request, as the ETag
    then carries it: `"<case version>.<digest>"`, so that a write's `If-Match` checks the
    case's part alone (`version_in`) while a cached copy still revalidates when any case
    changes (the document shows related cases).
    `keep`: the answer is also kept in the shared cache (`_kept_answer`); only for views
    whose arguments take a bounded set of values (ids, slugs, small integers), never a
    search text, so that no client can fill the cache.
    """

    def own_version(request: Any, kwargs: dict[str, Any]) -> str | None:
        assert version is not None
        if not hasattr(request, "_own_version"):
            request._own_version = version(request, **kwargs)
        return request._own_version

    def found(request: Any, kwargs: dict[str, Any]) -> bool:
        if version is not None:
            return own_version(request, kwargs) is not None
        if exists is None or not _is_conditional(request):
            return True
        if not hasattr(request, "_resource_exists"):
            request._resource_exists = exists(request, **kwargs)
        return request._resource_exists

    def etag(request: Any, *args: Any, **kwargs: Any) -> str | None:
        if not found(request, kwargs):
            return None
        # Host and full path: the body holds absolute URLs and depends on every parameter.
        digest = _digest(request.get_host(), request.get_full_path(), _store_version(request).token)
        return digest if version is None else f"{own_version(request, kwargs)}.{digest}"

    def last_modified(request: Any, *args: Any, **kwargs: Any):
        if not found(request, kwargs):
            return None
        return _store_version(request).last_modified

    conditional = method_decorator(condition(etag_func=etag, last_modified_func=last_modified))
    if not keep:
        return conditional
    return lambda method: conditional(_kept_answer(method))


# A case's own version in its ETags: hex digits of a digest of its id and `Case.modified`.
CASE_VERSION_LENGTH = 16


def case_version(case_id: str, modified: datetime.datetime) -> str:
    """The case's own version, as its ETags carry it: a digest of its id and `Case.modified`
    (which every write of the case moves, and no write of another case does). Not tied to
    the response format or the host: an `If-Match` read before a deploy still holds."""
    stamp = modified.astimezone(datetime.UTC).isoformat()
    return hashlib.sha256(f"case\x1f{case_id}\x1f{stamp}".encode()).hexdigest()[:CASE_VERSION_LENGTH]


def version_in(etag: str) -> str | None:
    """The case version an entity tag from `If-Match` carries (`case_version`: the part
    before the dot of `"<case version>.<representation>"`), None when it is no case's ETag.
    A weak `W/` prefix is ignored: a proxy that compresses an answer may weaken its ETag."""
    tag = etag.strip().removeprefix("W/")
    if len(tag) < 2 or tag[0] != '"' or tag[-1] != '"':
        return None
    own, dot, representation = tag[1:-1].partition(".")
    if not dot or not representation or len(own) != CASE_VERSION_LENGTH:
        return None
    return own


def stored_case_etag(request: Any, case_id: str, modified: datetime.datetime) -> str:
    """The quoted ETag of a write answer, which shows the case as stored (every hand-made
    link, `selectors.record_of(as_stored=True)`) where `GET /api/cases/{case_id}` shows the
    published ones: the same case version as GET's ETag, so `If-Match` takes either, and a
    representation part of its own (digest of "as stored", host, path and store version),
    so that no cache or client takes one body for the other (sent in `If-None-Match` to GET
    it gets GET's 200). 2 queries (`selectors.store_version`)."""
    path = reverse("api:case-detail", args=[case_id])
    digest = _digest("as stored", request.get_host(), path, selectors.store_version().token)
    return f'"{case_version(case_id, modified)}.{digest}"'


def streamed(request: HttpRequest, chunks: Iterator[T]) -> Iterator[T] | AsyncIterator[T]:
    """`chunks` (text, or bytes: `incidentlib.static_files`) in the form the running server
    consumes lazily.

    Under ASGI Django would read a synchronous iterator whole into memory before sending
    it, so there each chunk is produced in the sync thread (where the database connection
    lives) and handed over one at a time; under WSGI the iterator is used as it is.
    """
    underlying = getattr(request, "_request", request)
    if not isinstance(underlying, ASGIRequest):
        return chunks

    _end = object()
    next_chunk = sync_to_async(lambda: next(chunks, _end), thread_sensitive=True)

    async def produce() -> AsyncIterator[T]:
        while (chunk := await next_chunk()) is not _end:
            yield chunk  # type: ignore[misc]

    return produce()


def redirect_to_canonical(request: HttpRequest, given: str, canonical: str) -> HttpResponsePermanentRedirect:
    """301 to the same URL with `given` (a path segment) spelt as `canonical`, query kept
    (`moved_permanently`)."""
    path = request.path.replace(given, canonical, 1)
    query = request.META.get("QUERY_STRING")
    return moved_permanently(request, f"{path}?{query}" if query else path)


def moved_permanently(request: HttpRequest, location: str) -> HttpResponsePermanentRedirect:
    """301 to `location` with a JSON body naming it (`{"url": ...}`, absolute): an API
    answer is JSON, its redirects too; Django's is an empty `text/html` body (walk #15)."""
    response = HttpResponsePermanentRedirect(location, content_type="application/json")
    response.content = json.dumps({"url": request.build_absolute_uri(location)})
    return response
