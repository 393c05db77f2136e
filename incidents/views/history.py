"""`/cases/<id>/history`: what changed in a case, when, by whom and why."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from incidents import selectors
from incidents.history import case_history

from .common import render_page


def case_history_page(request: HttpRequest, case_id: str) -> HttpResponse:
    """Every recorded change of a published or retracted case, newest first, each with its
    field-level diff. Merged ids and other spellings redirect (301); unknown ids are 404.
    Data: `history.case_history` (one query) and the case (one query)."""
    case = selectors.visible_case_row(case_id)
    if case is None:
        target = selectors.redirect_target(case_id)
        if target:
            return redirect("incidents:case-history", case_id=target, permanent=True)
        raise Http404(f"No case {case_id}")
    return render_page(
        request,
        "incidents/case_history.html",
        {"case": case, "revisions": case_history(case.id)},
        json_url=reverse("api:case-history", args=[case.id]),
    )
