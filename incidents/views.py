"""HTML pages: case list and case detail. They parse input, call selectors, render."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from . import selectors

CASES_PER_PAGE = 20


def case_list(request: HttpRequest) -> HttpResponse:
    """`/cases/`: published cases newest first, `CASES_PER_PAGE` per page."""
    paginator = Paginator(selectors.case_list(), CASES_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    response = render(request, "incidents/case_list.html", {
        "page": page,
        "json_url": reverse("api:case-list"),
    })
    response["Link"] = f'<{reverse("api:case-list")}>; rel="alternate"; type="application/json"'
    return response


def case_detail(request: HttpRequest, case_id: str) -> HttpResponse:
    """`/cases/<id>`: every section of one case; other spellings of the id redirect."""
    case = selectors.case_by_id(case_id)
    if case is None:
        canonical = selectors.canonical_case_id(case_id)
        if canonical and canonical != case_id:
            return redirect("incidents:case-detail", case_id=canonical, permanent=True)
        raise Http404(f"No case {case_id}")
    json_url = reverse("api:case-detail", args=[case.id])
    response = render(request, "incidents/case_detail.html", {
        "case": case,
        "related": selectors.related_cases(case),
        "json_url": json_url,
    })
    response["Link"] = f'<{json_url}>; rel="alternate"; type="application/json"'
    return response
