"""What every HTML page shares: its JSON twin as a `<link>` tag and a `Link` header, the
404 page that suggests what was meant, and the 405 of a page that only reads."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from incidents import selectors
from incidents.models import Case, Term
from incidents.selectors.spelling import normalize_case_id

READ_METHODS = ("GET", "HEAD")


def only_reads(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """A page that answers GET and HEAD only: any other method gets the site's 405 page
    with `Allow: GET, HEAD`. Exempt from the CSRF check, which would otherwise answer a
    POST first with Django's bare 403: the page changes nothing, so a forged request gains
    nothing (the forms that write, /propose/ and the admin, keep the check)."""

    @csrf_exempt
    @functools.wraps(view)
    def reading(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method not in READ_METHODS:
            methods = ", ".join(READ_METHODS)
            message = (
                f"This page only shows what the library holds: it answers {methods}, not {request.method}."
            )
            response = render(
                request, "error.html", {"title": "Method not allowed", "message": message}, status=405
            )
            response["Allow"] = methods
            return response
        return view(request, *args, **kwargs)

    return reading


def render_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    json_url: str | None,
    json_method: str = "GET",
    status: int = 200,
) -> HttpResponse:
    """Render `template`; `json_url` (the page's API twin) goes in the head, footer and header.

    Like datasette, the twin is announced both ways: `<link rel="alternate"
    type="application/json">` for people and crawlers, a `Link` header for scripts. A form
    page's twin is the endpoint that takes the same form as a JSON body (`json_method`
    "POST": `/match/` -> `POST /api/match`): the header says so in its `title`, and the
    footer names the method instead of a link a browser would follow with GET.
    """
    page_context = {**context, "json_url": json_url, "json_method": json_method}
    response = render(request, template, page_context, status=status)
    if json_url:
        link = f'<{json_url}>; rel="alternate"; type="application/json"'
        if json_method != "GET":
            link += f'; title="{json_method} a JSON body"'
        response["Link"] = link
    return response


def unknown_term_page(request: HttpRequest, slug: str, lookup: selectors.TermLookup) -> HttpResponse:
    """The 404 page of a `slug` naming no term of a facet (`lookup`, `find_facet_term`'s or
    `find_topic`'s answer for it), for `/topics/<slug>`, `/vocab/<facet>/<slug>`,
    `/codes/<slug>` and their feeds: the sentence the API and MCP say of it
    (`lookup.problem`: `No symptom called “trainig-hang”. Did you mean Training hang?`)
    with the closest terms first, not "Nothing lives at <path>"."""
    notice = lookup.problem(slug).message()  # the API's 404 says it in these words
    return not_found_page(request, what=notice, text=slug, topics=lookup.closest, notice=notice)


def not_found_page(
    request: HttpRequest,
    *,
    what: str,
    text: str,
    closest_ids: Sequence[str] = (),
    topics: Sequence[Term] = (),
    case_hint: bool = False,
    notice: str | None = None,
) -> HttpResponse:
    """The 404 page for a case, topic, term or code that does not exist, naming what might
    have been meant: the closest case ids, the topics given, and vocabulary terms spelt
    like `text` (one query; none for an overlong text: `selectors.closest_terms`), with a
    search for `text` when the search would take it (`MAX_QUERY_CHARS`); `case_hint` adds
    how case ids look (for a case id only: a vocabulary page has nothing to do with them);
    `notice`, what the other doors say of it, in place of "Nothing lives at <path>"."""
    terms = [t for t in selectors.closest_terms(text) if t not in topics]
    searchable = len(text) <= selectors.MAX_QUERY_CHARS
    # A bare id is no suggestion: each with its title (one query, only when there are some).
    titles = dict(Case.objects.filter(id__in=closest_ids).values_list("id", "title")) if closest_ids else {}
    return render(
        request,
        "404.html",
        {
            "path": request.path,
            "what": what,
            "case_hint": case_hint,
            # `IL-9999` is shaped as an id: "Case ids look like IL-0428" answered no question.
            "well_formed_id": case_hint and text.startswith("IL-") and normalize_case_id(text) == text,
            "notice": notice,
            "closest_cases": [
                (case_id, reverse("incidents:case-detail", args=[case_id]), titles.get(case_id, ""))
                for case_id in closest_ids
            ],
            "closest_terms": [*topics, *terms],
            "search_url": (
                reverse("incidents:case-list") + "?" + urlencode({"q": text}) if searchable else None
            ),
        },
        status=404,
    )
