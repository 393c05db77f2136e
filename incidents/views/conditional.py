"""Conditional GET for HTML pages and feeds: `ETag` and `Last-Modified` from the store version.

A page shows only what the store holds (cases and vocabulary), the URL and the site's own
templates and static files. So its validators are:

- `ETag`: digest of host, full path, `selectors.store_version().token` and a digest of the
  templates and static files (computed once per process, so a deployment that changes the
  look revalidates every cached page);
- `Last-Modified`: the newest case modification, or the newest template / static file
  change when that is later.

`django.views.decorators.http.condition` answers a matching `If-None-Match` (or, without
one, `If-Modified-Since`) with 304 before the view runs. The store version costs two
queries (`selectors.store_version`), read once per request.

With the store cache on (`settings.STORE_CACHE`), a page's rendered body is
also kept in the shared cache under its host, full path, store generation and site digest,
so that a case page costs two cache reads instead of its queries and template: the same
page is the same bytes for every reader (no page of the site depends on who asks), and a
write starts a new generation, so an edited case is never served from the cache. Only for
pages asked without a query string: the paths are bounded by the store's ids and slugs,
and a search or filtered list (any query string) is computed every time.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import patch_cache_control
from django.views.decorators.http import condition

from incidents import selectors, store_cache

from .common import only_reads

View = Callable[..., HttpResponseBase]


@functools.cache
def _site_files() -> tuple[str, datetime.datetime]:
    """(digest, newest modification) of every template and static file of the site."""
    roots = [Path(settings.BASE_DIR) / "templates", Path(settings.BASE_DIR) / "static"]
    files = sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    newest = 0.0
    for path in files:
        digest.update(str(path.relative_to(settings.BASE_DIR)).encode() + b"\0" + path.read_bytes())
        newest = max(newest, path.stat().st_mtime)
    return digest.hexdigest()[:16], datetime.datetime.fromtimestamp(int(newest), tz=datetime.UTC)


def _store_version(request: Any) -> selectors.StoreVersion:
    version = getattr(request, "_store_version", None)
    if version is None:
        version = selectors.store_version()
        request._store_version = version
    return version


def _is_conditional(request: HttpRequest) -> bool:
    return bool(request.META.get("HTTP_IF_NONE_MATCH") or request.META.get("HTTP_IF_MODIFIED_SINCE"))


def _page_name(request: HttpRequest) -> str | None:
    """The store-cache name of this page's body (`store_cache.answer`), or None when it is
    not kept."""
    # A query string would let any client mint keys without end.
    if request.method != "GET" or request.META.get("QUERY_STRING"):
        return None
    parts = (request.scheme or "", request.get_host(), request.get_full_path(), _site_files()[0])
    return "page:" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _body_of(response: HttpResponseBase) -> tuple[bytes, str, str | None] | None:
    """What to keep of a page: a 200 body that sets no cookie and does not vary by one."""
    if (
        isinstance(response, HttpResponse)
        and response.status_code == 200
        and not response.cookies
        and "cookie" not in response.get("Vary", "").lower()
    ):
        return response.content, response["Content-Type"], response.get("Link")
    return None


def _page_of(kept: tuple[bytes, str, str | None]) -> HttpResponseBase:
    content, content_type, link = kept
    response = HttpResponse(content, content_type=content_type)
    if link:
        response["Link"] = link
    return response


def conditional_page(*, exists: Callable[..., bool] | None = None) -> Callable[[View], View]:
    """Decorate a page view (function or feed) with store-version validators and 304s.

    `exists(**view_kwargs)` is asked on conditional requests only, so that a page that no
    longer exists answers 404 rather than 304. Answers are marked `Cache-Control: no-cache`:
    caches may keep them but revalidate each time (the revalidation is the cheap part).
    A 200 body asked for without a query string is kept in the shared cache (module docstring).
    Only GET and HEAD are answered: any other method gets a 405 with `Allow` (`only_reads`).
    """

    def found(request: Any, kwargs: dict[str, Any]) -> bool:
        if exists is None or not _is_conditional(request):
            return True
        if not hasattr(request, "_page_exists"):
            request._page_exists = exists(**kwargs)
        return request._page_exists

    def etag(request: Any, *args: Any, **kwargs: Any) -> str | None:
        if not found(request, kwargs):
            return None
        parts = (request.get_host(), request.get_full_path(), _store_version(request).token, _site_files()[0])
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]

    def last_modified(request: Any, *args: Any, **kwargs: Any) -> datetime.datetime | None:
        if not found(request, kwargs):
            return None
        store = _store_version(request).last_modified
        site = _site_files()[1]
        return max(store, site) if store else site

    def decorator(view: View) -> View:
        @functools.wraps(view)
        def own_validators(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            name = _page_name(request)
            if name is None:
                response = view(request, *args, **kwargs)
            else:
                response = store_cache.answer(
                    name, lambda: view(request, *args, **kwargs), keep=_body_of, restore=_page_of
                )
            # A syndication feed sets Last-Modified from its items; the store's must win so
            # that a client sending it back gets its 304.
            if response.has_header("Last-Modified"):
                del response["Last-Modified"]
            return response

        conditioned = condition(etag_func=etag, last_modified_func=last_modified)(own_validators)

        @only_reads
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            response = conditioned(request, *args, **kwargs)
            if response.status_code in (200, 304):
                patch_cache_control(response, no_cache=True)
            else:
                # Validators describe a page; a redirect or error has none.
                for header in ("ETag", "Last-Modified"):
                    if response.has_header(header):
                        del response[header]
            return response

        return wrapped

    return decorator
