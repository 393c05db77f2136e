"""`/refs/?ref=NVIDIA/nccl%231116` or `?url=`: an upstream record and the cases citing it."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from incidents import selectors

from .common import render_page

MAX_REFERENCE_CHARS = 2000


def reference_page(request: HttpRequest) -> HttpResponse:
    """The record (as a citing case describes it: kind, alias, state, fixed-in release) and
    the published cases citing it in their references or sources, newest first; its JSON
    twin is `/api/lookup` with the same parameter.

    Without any query parameter, the lookup form alone (200): nothing was asked yet. With
    `ref`/`url` empty, other parameters only, or text that names no record, a 400 page with
    the lookup form saying what to give. Data: `selectors.record_lookup` (3 queries).
    """
    name = "url" if "url" in request.GET and "ref" not in request.GET else "ref"
    value = (request.GET.get(name) or "").strip()[:MAX_REFERENCE_CHARS]
    found = problem = None
    if not request.GET:
        pass  # nothing asked yet: the form alone
    elif not value:
        problem = "Give an upstream record: an alias such as NVIDIA/nccl#1116, or a URL."
    else:
        try:
            found = selectors.record_lookup(value)
        except selectors.NotAReference:
            problem = (
                f"“{value[:200]}” names no upstream record: give owner/repo#N, repo#N, "
                "arXiv:NNNN.NNNNN or an http(s) URL."
            )
            if hint := selectors.cut_at_hash(value):
                problem += f" {hint[0].upper()}{hint[1:]}."
    json_url = f"{reverse('api:lookup')}?{urlencode({name: value})}" if found else None
    return render_page(
        request,
        "incidents/reference.html",
        {"found": found, "problem": problem, "value": value, "name": name},
        json_url=json_url,
        status=400 if problem else 200,
    )
