"""Site-wide error handlers: JSON problem details under /api/, HTML elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import defaults

from api.errors import problem_response


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return problem_response(
            400, "Bad Request", "The request could not be understood.", instance=request.path
        )
    return defaults.bad_request(request, exception or Exception())


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return problem_response(403, "Forbidden", "The request was refused.", instance=request.path)
    return defaults.permission_denied(request, exception or Exception())


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return problem_response(404, "Not Found", f"No resource at {request.path}", instance=request.path)
    return render(request, "404.html", {"path": request.path}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return problem_response(
            500, "Internal Server Error", "The server failed to answer.", instance=request.path
        )
    return render(request, "500.html", status=500)
