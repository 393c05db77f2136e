"""Site-wide 404 and 500 handlers: JSON problem details under /api/, HTML elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from api.errors import problem_response


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return problem_response(404, "Not Found", f"No resource at {request.path}")
    return render(request, "404.html", {"path": request.path}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        return problem_response(500, "Internal Server Error", "The server failed to answer.")
    return render(request, "500.html", status=500)
