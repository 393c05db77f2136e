"""`/codes/` and `/codes/<slug>`: error codes, what they mean and what they turned out to be."""

from __future__ import annotations

from itertools import groupby

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from incidents import selectors
from incidents.models import Facet

from .common import render_page, unknown_term_page


def code_index(request: HttpRequest) -> HttpResponse:
    """`/codes/`: every error code by vendor (NVIDIA driver Xid, NCCL, CUDA, InfiniBand
    verbs, PyTorch, Kubernetes, Slurm ...) with its one-line meaning and case count.

    Data: `selectors.error_codes()` (one query).
    """
    codes = selectors.error_codes()
    groups = [(vendor, list(terms)) for vendor, terms in groupby(codes, key=lambda t: t.vendor or "")]
    return render_page(
        request,
        "incidents/code_index.html",
        {"groups": groups, "total": len(codes), "with_cases": sum(1 for t in codes if t.case_count)},
        json_url=reverse("api:code-list"),
    )


def code_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """`/codes/<slug>`: the code's meaning and where it comes from (the vendor documentation
    cited), the published cases that showed it, how often each root cause was the answer
    among them ("Hardware fault: 5 of 7") and the checks those cases name.

    A code named by its name or a synonym (`/codes/Xid 79`) redirects permanently to its
    slug; an unknown one gives the 404 its feed gives, saying what the API and MCP say of
    it with the closest codes (`No error code called “xid-97”. Did you mean Xid 74, ...?`:
    `common.unknown_term_page`).
    Data: `selectors.code_detail` (3 queries), `selectors.find_facet_term` when the slug is
    not one.
    """
    detail = selectors.code_detail(slug)
    if detail is None:
        lookup = selectors.find_facet_term(Facet.ERROR_CODE, slug)
        if lookup.term is not None:
            return redirect("incidents:code-detail", slug=lookup.term.slug, permanent=True)
        return unknown_term_page(request, slug, lookup)
    return render_page(
        request,
        "incidents/code_detail.html",
        {"detail": detail, "term": detail.term},
        json_url=reverse("api:code-detail", args=[detail.term.slug]),
    )
