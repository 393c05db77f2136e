"""HTTP behaviour shared by every API view: JSON only, caching headers, conditional GET,
and streaming that stays constant-memory under ASGI (throttling: `api.throttling`).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest
from django.utils.cache import patch_cache_control
from django.utils.decorators import method_decorator
from django.views.decorators.http import condition
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.views import APIView

from incidents import feeds

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
                if response.has_header(header) and response.status_code != 200:
                    del response[header]
            if not response.has_header("Cache-Control"):
                response["Cache-Control"] = "no-store"
        return response


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join((RESPONSE_FORMAT, *parts)).encode()).hexdigest()[:32]


def _store_version(request: Any) -> feeds.StoreVersion:
    """The store version, read once per request (ETag and Last-Modified both need it)."""
    version = getattr(request, "_store_version", None)
    if version is None:
        version = feeds.store_version()
        request._store_version = version
    return version


def _store_etag(request: Any, *args: Any, **kwargs: Any) -> str:
    # Host and full path: the body holds absolute URLs and depends on every parameter.
    return _digest(request.get_host(), request.get_full_path(), _store_version(request).token)


def _store_last_modified(request: Any, *args: Any, **kwargs: Any):
    return _store_version(request).last_modified


def conditional_on_store(view_method: Callable) -> Callable:
    """Conditional GET for answers that depend on the whole store (lists, stats, export).

    `ETag` and `Last-Modified` come from one aggregate query; a matching
    `If-None-Match` / `If-Modified-Since` gets 304 without running the view. Errors
    raised by the view carry no validators (the decorator only adds them on return).
    """
    return method_decorator(condition(etag_func=_store_etag,
                                      last_modified_func=_store_last_modified))(view_method)


def conditional_on(version_of: Callable[..., tuple[str, Any] | None]) -> Callable:
    """Conditional GET for answers that depend on one record.

    `version_of(request, **url_kwargs)` returns `(token, last_modified)` or None (the view
    then runs and answers 404 itself); it is called once per request.
    """

    def cached(request: Any, kwargs: dict[str, Any]) -> tuple[str, Any] | None:
        if not hasattr(request, "_record_version"):
            request._record_version = version_of(request, **kwargs)
        return request._record_version

    def etag(request: Any, *args: Any, **kwargs: Any) -> str | None:
        version = cached(request, kwargs)
        if version is None:
            return None
        return _digest(request.get_host(), request.get_full_path(), version[0])

    def last_modified(request: Any, *args: Any, **kwargs: Any):
        version = cached(request, kwargs)
        return version[1] if version else None

    return method_decorator(condition(etag_func=etag, last_modified_func=last_modified))


def streamed(request: HttpRequest, chunks: Iterator[str]) -> Iterator[str] | AsyncIterator[str]:
    """`chunks` in the form the running server consumes lazily.

    Under ASGI Django would read a synchronous iterator whole into memory before sending
    it, so there each chunk is produced in the sync thread (where the database connection
    lives) and handed over one at a time; under WSGI the iterator is used as it is.
    """
    underlying = getattr(request, "_request", request)
    if not isinstance(underlying, ASGIRequest):
        return chunks

    _end = object()
    next_chunk = sync_to_async(lambda: next(chunks, _end), thread_sensitive=True)

    async def produce() -> AsyncIterator[str]:
        while (chunk := await next_chunk()) is not _end:
            yield chunk  # type: ignore[misc]

    return produce()
