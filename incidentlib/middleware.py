"""Site-wide answers to requests that must never reach a view or a 500.

- `RejectNulMiddleware`: a NUL byte in the path is a 404 and in a query parameter a 400 that
  names the parameter. No view has to think about them, and PostgreSQL (which refuses NUL
  in text) never sees one.
- `StoreGenerationMiddleware`: a request reads the store generation from the shared cache
  once (`store_cache.one_generation`), not once per cached value it uses.
- `TlsRedirectMiddleware`: the redirect to https:// of Django's `SecurityMiddleware` (with
  `HTTPS=true`), answered before it as a 308, which clients follow with the same method and body: a 301 turns
  `POST /api/match` into a GET without its body. `/mcp` is redirected by the ASGI app
  (`incidentlib.tls_redirect`), since it never reaches Django.
- `HealthCheckMiddleware`: `/healthz` is answered before anything reads the Host header, so a
  load balancer probing by IP address or an internal name gets its answer (the check says
  nothing about the site's data).
- `DatabaseUnavailableMiddleware`: when a database or the shared cache server cannot be
  reached mid-request, the answer is a 503 with `Retry-After` and a body that says so (problem
  JSON under /api/, the site's page elsewhere) naming the database alias; the log line has the
  driver's message too. Django opens a fresh connection on the next request, so the app
  recovers by itself once the database is back.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render

from api.errors import ParameterError, problem_response
from incidentlib.cache_errors import CACHE_ERRORS
from incidentlib.errors import is_api_request
from incidentlib.health import HEALTH_PATH, RETRY_AFTER_SECONDS, healthz
from incidentlib.outages import driver_message, failed_aliases
from incidents import store_cache
from incidents.selectors.params import NUL_DETAIL
from incidents.servers_cache import SharedCacheUnreachable

logger = logging.getLogger("incidentlib.reliability")


class RejectNulMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            raise Http404("No such page")
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                value = next((v for v in values if "\x00" in v), values[0] if values else "")
                return self._bad_parameter(request, name.replace("\x00", "\\0"), value)
        return self.get_response(request)

    @staticmethod
    def _bad_parameter(request: HttpRequest, name: str, value: str) -> HttpResponse:
        """400 naming the parameter: under /api/ a problem whose `errors` entry has the shape
        of every parameter error (`api.errors.ParameterError`: `value` the value as given, the
        NUL as `\u0000` in JSON), else the error page."""
        detail = NUL_DETAIL
        if is_api_request(request):
            error = ParameterError(name, detail, value)
            return problem_response(
                400, "Bad Request", f"{name}: {detail}", errors=[error.as_dict()], instance=request.path
            )
        context = {"title": "Bad request", "message": f"The parameter “{name}” {detail}."}
        return render(request, "error.html", context, status=400)


class StoreGenerationMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with store_cache.one_generation():
            return self.get_response(request)


class TlsRedirectMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # SecurityMiddleware's own test (it stays in MIDDLEWARE for its headers, after this one).
        if (
            settings.SECURE_SSL_REDIRECT
            and not request.is_secure()
            and not any(
                re.search(pattern, request.path.lstrip("/")) for pattern in settings.SECURE_REDIRECT_EXEMPT
            )
        ):
            host = settings.SECURE_SSL_HOST or request.get_host()
            return HttpResponsePermanentRedirect(
                f"https://{host}{request.get_full_path()}", preserve_request=True
            )
        return self.get_response(request)


class HealthCheckMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == HEALTH_PATH:
            return healthz(request)
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, OperationalError | InterfaceError):
            aliases = failed_aliases()
            named = ", ".join(aliases) or "unknown alias"
            logger.error(
                "database unavailable: %s %s: database %s: %s: %s",
                request.method,
                request.path,
                named,
                type(exception).__name__,
                driver_message(exception),
            )
            which = f" ({', '.join(aliases)})" if aliases else ""
            detail = f"The case database{which} is not answering right now. Try again in a few seconds."
        elif isinstance(exception, CACHE_ERRORS + (SharedCacheUnreachable,)):
            logger.error(
                "shared cache unavailable: %s %s: %s: %s",
                request.method,
                request.path,
                type(exception).__name__,
                exception,
            )
            detail = "The site's shared cache is not answering right now. Try again in a few seconds."
        else:
            return None
        return self._unavailable(request, detail)

    @staticmethod
    def _unavailable(request: HttpRequest, detail: str) -> HttpResponse:
        if is_api_request(request):
            response: HttpResponse = problem_response(
                503, "Service Unavailable", detail, instance=request.path
            )
        else:
            context = {"title": "Temporarily unavailable", "message": detail}
            response = render(request, "error.html", context, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
