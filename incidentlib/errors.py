"""Site-wide error handlers: JSON problem details under /api/, HTML elsewhere."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views import defaults

from api.errors import problem_response
from incidents.search.log_lines import MAX_LOG_BYTES


def is_api_request(request: HttpRequest) -> bool:
    """Whether `request` is for the JSON API, which answers errors as problem documents."""
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400 on the site's own page (problem JSON under /api/), saying so when the Host is not in
    ALLOWED_HOSTS; 413 for a body over DATA_UPLOAD_MAX_MEMORY_SIZE, saying the limit."""
    if isinstance(exception, RequestDataTooBig):
        limit = f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1_000_000:.1f} MB"
        detail = f"The request body is larger than {limit}, the most this site accepts."
        if is_api_request(request):
            return problem_response(413, None, detail, instance=request.path)  # errors.TITLES
        message = (
            f"{detail} When pasting a log, the {MAX_LOG_BYTES // 1_000_000} MB around the failure "
            "are enough: the first error and the lines before it."
        )
        return render(request, "error.html", {"title": "Too large", "message": message}, status=413)
    if isinstance(exception, DisallowedHost):
        # The real reason, which the log alone said: the Host header names no site served here.
        detail = (
            "The host name in this request is not one this server is configured to answer "
            "(its ALLOWED_HOSTS setting)."
        )
        if is_api_request(request):
            return problem_response(400, "Bad Request", detail, instance=request.path)
        return render(request, "error.html", {"title": "Unknown host", "message": detail}, status=400)
    if is_api_request(request):
        return problem_response(
            400, "Bad Request", "The request could not be understood.", instance=request.path
        )
    message = "The request could not be understood: its parameters or body are malformed."
    return render(request, "error.html", {"title": "Bad request", "message": message}, status=400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api_request(request):
        return problem_response(403, "Forbidden", "The request was refused.", instance=request.path)
    return defaults.permission_denied(request, exception or Exception())


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api_request(request):
        return problem_response(404, "Not Found", f"No resource at {request.path}", instance=request.path)
    # How a case id looks only where one was expected (`/cases/<id>/...`): elsewhere
    # (`/nope`, `/feeds/...`) the hint answered a question nobody asked.
    case_hint = request.path.startswith(reverse("incidents:case-list"))
    return render(request, "404.html", {"path": request.path, "case_hint": case_hint}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api_request(request):
        return problem_response(
            500, "Internal Server Error", "The server failed to answer.", instance=request.path
        )
    return render(request, "500.html", status=500)
