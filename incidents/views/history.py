"""`/cases/<id>/history`: what changed in a case, when, by whom and why."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from incidents import selectors

from .common import render_page


def case_history_page(request: HttpRequest, case_id: str) -> HttpResponse:
    """Every recorded change of a published, retracted or merged case, newest first, each
    with its field-level diff. A merged case's history stays its own (its page redirects to
    the kept case; its history says which and links there), and a kept case's history links
    the histories of the cases merged into it. Other spellings of an id redirect (301);
    unknown ids are 404. Data: `selectors.history_of` (3 queries)."""
    shown = selectors.history_of(case_id)
    if shown is None:
        stored = selectors.history_spelling(case_id)
        if stored:
            return redirect("incidents:case-history", case_id=stored, permanent=True)
        raise Http404(f"No case {case_id}")
    return render_page(
        request,
        "incidents/case_history.html",
        {"case": shown.case, "history": shown, "revisions": shown.revisions},
        json_url=reverse("api:case-history", args=[shown.case.id]),
    )
