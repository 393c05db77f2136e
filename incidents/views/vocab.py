"""`/vocab/` and `/vocab/<facet>/<slug>`: the vocabulary cases are described with."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from incidents import selectors
from incidents.models import Facet, Term
from incidents.selectors import FACETS_BY_NAME, FACETS_BY_SEGMENT

from .common import not_found_page, render_page, unknown_term_page

FACET_TITLES: dict[str, str] = {
    Facet.TOPIC: "Topics",
    Facet.SYMPTOM: "Symptom tags",
    Facet.ROOT_CAUSE: "Root-cause categories",
    Facet.COMPONENT: "Components",
    Facet.WORKLOAD: "Workloads",
    Facet.ORGANIZATION: "Organizations",
    Facet.ACCELERATOR: "Accelerators",
}
# Headings of the terms a term's cases also carry (error codes too, though /vocab/ lists
# them not: they have /codes/).
CO_OCCURRING_TITLES: dict[str, str] = {**FACET_TITLES, Facet.ERROR_CODE: "Error codes"}
CASES_SHOWN = 20


def vocab_index(request: HttpRequest) -> HttpResponse:
    """`/vocab/`: every term of every facet with its description and case count; an
    accelerator also with its vendor and family.

    Data: `selectors.vocabulary()` (one query).
    """
    terms = selectors.vocabulary()
    names = {term.id: term.name for term in terms}
    by_facet: dict[str, list] = {facet: [] for facet in FACET_TITLES}
    for term in terms:
        by_facet[term.facet].append((term, _chip_note(term, names)))
    sections = [
        (facet, FACET_TITLES[facet], FACETS_BY_NAME[facet].segment, terms)
        for facet, terms in by_facet.items()
    ]
    return render_page(
        request, "incidents/vocab_index.html", {"sections": sections}, json_url=reverse("api:vocab")
    )


def _chip_note(term: Term, names: dict[int, str]) -> str:
    """ "NVIDIA · model of A100" for an accelerator model, "NVIDIA" for a family, else ""."""
    if term.facet != Facet.ACCELERATOR:
        return ""
    parts = [term.vendor or ""]
    if term.family_id is not None:
        parts.append(f"model of {names.get(term.family_id, '')}")
    return " · ".join(p for p in parts if p)


def vocab_term(request: HttpRequest, facet: str, slug: str) -> HttpResponse:
    """`/vocab/<facet>/<slug>` (`facet`: symptom, root-cause, component, organization,
    accelerator): the term's description, synonyms (an organization's or accelerator's
    aliases), latest cases and the terms that most often occur with it; an accelerator
    also with its vendor, its family or its models.

    Topics redirect to `/topics/<slug>`; a term named otherwise than by its URL (the facet
    or slug in other letters, the term's name or a synonym: `/vocab/symptom/NCCL-timeout`,
    `/vocab/accelerator/H100`) redirects permanently to it, as `/topics/` and `/codes/` do;
    an unknown term gives the 404 its feed gives, saying what the API and MCP say of it
    with the closest terms of the facet (`No symptom called “trainig-hang”. Did you mean
    Training hang?`: `common.unknown_term_page`); an unknown facet, a 404 naming the terms
    spelt like the slug.
    Data: `selectors.term_detail`, `selectors.find_facet_term` when the slug is not one.
    """
    segment = facet.lower()
    facet_value = FACETS_BY_SEGMENT.get(segment)
    if facet_value is None:
        return not_found_page(request, what=f"No vocabulary {facet}", text=slug)
    if facet_value == Facet.TOPIC:
        return redirect("incidents:topic-detail", slug=slug, permanent=True)
    detail = selectors.term_detail(facet_value, slug, limit=CASES_SHOWN) if segment == facet else None
    if detail is None:
        lookup = selectors.find_facet_term(facet_value, slug)
        if lookup.term is not None:
            return redirect("incidents:vocab-term", facet=segment, slug=lookup.term.slug, permanent=True)
        return unknown_term_page(request, slug, lookup)
    filter_url = detail.term.get_filter_url()
    co_occurring = [
        (CO_OCCURRING_TITLES[f], [(t, n, f"{filter_url}&{f}={t.slug}") for t, n in pairs])
        for f, pairs in detail.co_occurring.items()
        if pairs
    ]
    feed_url = reverse("incidents:feed-symptom", args=[slug]) if facet_value == Facet.SYMPTOM else None
    return render_page(
        request,
        "incidents/vocab_term.html",
        {
            "detail": detail,
            "term": detail.term,
            "facet_title": FACET_TITLES[facet_value],
            "facet_singular": Facet(facet_value).label,
            "chip": detail.chip,
            "co_occurring": co_occurring,
            "filter_url": filter_url,
            "feed_url": feed_url,
        },
        json_url=reverse("api:vocab-facet", args=[facet_value]),
    )
