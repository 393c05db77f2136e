"""What every HTML page shares: its JSON twin as a `<link>` tag and a `Link` header."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def render_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    json_url: str | None,
    status: int = 200,
) -> HttpResponse:
    """Render `template`; `json_url` (the page's API twin) goes in the head, footer and header.

    Like datasette, the twin is announced both ways: `<link rel="alternate"
    type="application/json">` for people and crawlers, a `Link` header for scripts.
    """
    response = render(request, template, {**context, "json_url": json_url}, status=status)
    if json_url:
        response["Link"] = f'<{json_url}>; rel="alternate"; type="application/json"'
    return response
