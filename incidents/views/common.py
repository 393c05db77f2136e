"""What every HTML page shares: its JSON twin as a `<link>` tag and a `Link` header, and
the 404 page that suggests what was meant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from incidents import selectors
from incidents.models import Term


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


def not_found_page(
    request: HttpRequest,
    *,
    what: str,
    text: str,
    closest_ids: Sequence[str] = (),
    topics: Sequence[Term] = (),
) -> HttpResponse:
    """The 404 page for a case or topic that does not exist, naming what might have been
    meant: the closest case ids, the topics given, and vocabulary terms spelt like `text`
    (one query), with a search for `text`."""
    terms = [t for t in selectors.closest_terms(text) if t not in topics]
    return render(
        request,
        "404.html",
        {
            "path": request.path,
            "what": what,
            "closest_cases": [
                (case_id, reverse("incidents:case-detail", args=[case_id])) for case_id in closest_ids
            ],
            "closest_terms": [*topics, *terms],
            "search_url": reverse("incidents:case-list") + "?" + urlencode({"q": text}),
        },
        status=404,
    )
