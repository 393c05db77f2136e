"""`/propose/` (the form) and `/proposals/<token>` (the proposer's private status page)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from api.errors import word_field_errors
from incidents.problems import CaseImportError
from incidents.views.common import only_reads, render_page

from .forms import ProposalForm, initial_from_link
from .models import Proposal
from .receive import RateLimited, check_refusals, note_refused, receive


@never_cache
@csrf_protect
def propose(request: HttpRequest) -> HttpResponse:
    """The proposal form. POST: checked by `ProposalForm` (sizes, no HTML, honeypot); a valid
    one lands in the review queue and the proposer is sent to the private status page.
    Only a proposal received counts against the per-client proposal rate, a refused one
    (400, the form showing its errors) against the larger rate of refusals (`receive.py`);
    over either, 429 with `Retry-After` and the form saying when to try again. While
    typing, `static/js/propose.js` shows existing cases that look similar
    (`/api/proposals/lookalikes`). GET `?case_id=IL-0428` (the link on each case page)
    opens the form as a correction of that case (`initial_from_link`).

    A form sent back with errors opens with an error summary listing them, which takes the
    focus, and a title starting "Error:" (the GOV.UK pattern), so a screen-reader user hears
    at once that it was not sent and why."""
    if request.method == "POST":
        form = ProposalForm(request.POST or None)
    else:
        form = ProposalForm(initial=initial_from_link(request.GET))
    status = 200
    wait = None
    if request.method == "POST":
        try:
            check_refusals(request)
            if form.is_valid():
                try:
                    proposal = receive(request, form.cleaned_data)
                except CaseImportError as error:
                    for problem in error.problems:
                        form.add_error(None, f"{problem.path.removeprefix('$.')}: {problem.message}")
                else:
                    return redirect(proposal.get_absolute_url())
            note_refused(request)
            # In the words the API uses for the same fields (`POST /api/proposals/`).
            word_field_errors(form, request.POST)
            status = 400
        except RateLimited as limited:
            form.add_error(None, limited.message)
            status, wait = 429, limited.wait
    # The JSON twin takes the same fields as a body: `POST /api/proposals/`.
    response = render_page(
        request,
        "incidents/propose.html",
        {"form": form},
        json_url=reverse("api:proposal-create"),
        json_method="POST",
        status=status,
    )
    if wait is not None:
        response["Retry-After"] = str(wait)
    return response


@never_cache
@only_reads
def proposal_status(request: HttpRequest, token: str) -> HttpResponse:
    """Where a proposal stands: received, in review, accepted (with the case) or declined
    (with the reason). Only whoever holds the private link can see it."""
    proposal = Proposal.objects.select_related("case").filter(token=token).first()
    if proposal is None:
        raise Http404("No proposal at this address.")
    # Its JSON twin is as private as the page: the same token, `GET /api/proposals/<token>`.
    response = render_page(
        request,
        "incidents/proposal_status.html",
        {"proposal": proposal},
        json_url=reverse("api:proposal-status", args=[token]),
    )
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"  # the token must not leak to linked sites
    return response
