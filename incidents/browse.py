"""Reads the browsing pages need beyond `selectors` and `search`: one vocabulary term with
its cases and co-occurring terms, feed and sitemap lists.

Like `selectors`, every function here costs a fixed number of queries whatever the data
size; views call these and never build queries themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from .models import Case, CaseQuerySet, Facet, Term
from .selectors.facets import TERM_FACETS


def cases_with_term(term: Term) -> CaseQuerySet:
    """Published cases that use `term` (as root-cause category or as a linked term), unevaluated."""
    published = Case.objects.published()
    if term.facet == Facet.ROOT_CAUSE:
        return published.filter(root_cause_category=term)
    return published.filter(term_links__term=term)


@dataclass(frozen=True)
class TermDetail:
    """One vocabulary term, its published cases and the terms most often used with it."""

    term: Term
    case_count: int
    cases: list[Case]  # newest first, at most `limit`
    co_occurring: dict[str, list[tuple[Term, int]]]  # facet -> (term, shared cases), most first


def term_detail(facet: str, slug: str, *, limit: int = 20, top: int = 8) -> TermDetail | None:
    """The term `slug` of `facet` with its cases and co-occurring terms, or None if unknown.

    `cases` holds the `limit` newest published cases using it (prefetched for case cards);
    `co_occurring` maps each facet (the term's own included, the term itself left out) to at
    most `top` terms ranked by how many of those cases also use them. Fixed 8 queries: term,
    count, cases with their root cause and term links (3), co-occurrence per facet (4).
    """
    term = Term.objects.filter(facet=facet, slug=slug).first()
    if term is None:
        return None
    cases = cases_with_term(term)
    ids = cases.values("id")
    co_occurring: dict[str, list[tuple[Term, int]]] = {}
    for other_facet in TERM_FACETS:
        if other_facet == Facet.ROOT_CAUSE:
            terms = (
                Term.objects.of(other_facet)
                .filter(root_cause_cases__in=ids)
                .annotate(case_count=Count("root_cause_cases"))  # type: ignore[no-redef]
            )
        else:
            terms = (
                Term.objects.of(other_facet)
                .filter(case_links__case__in=ids)
                .annotate(case_count=Count("case_links"))  # type: ignore[no-redef]
            )
        terms = terms.exclude(id=term.id).order_by("-case_count", "name")[:top]
        co_occurring[other_facet] = [(t, t.case_count) for t in terms]
    return TermDetail(
        term=term,
        case_count=cases.count(),
        cases=list(cases.newest_first().with_summary()[:limit]),
        co_occurring=co_occurring,
    )


def latest_cases(*, limit: int = 5) -> list[Case]:
    """The `limit` newest published cases, prefetched for case cards (3 queries)."""
    return list(Case.objects.published().newest_first().with_summary()[:limit])


def feed_cases(term: Term | None = None, *, limit: int = 50) -> list[Case]:
    """Newest published cases for an Atom feed, all or those using `term` (3 queries)."""
    cases = cases_with_term(term) if term is not None else Case.objects.published()
    return list(cases.newest_first().with_summary()[:limit])


def feed_term(facet: str, slug: str) -> Term | None:
    """The term a per-topic or per-symptom feed follows, or None (one query)."""
    return Term.objects.filter(facet=facet, slug=slug).first()


def sitemap_cases() -> CaseQuerySet:
    """Published cases for the sitemap, with only what the sitemap reads (id, modified)."""
    return Case.objects.published().only("id", "modified").order_by("id")


def sitemap_terms() -> list[Term]:
    """Terms that at least one published case uses, for the sitemap (one query)."""
    return [t for t in Term.objects.with_case_counts().order_by("facet", "slug") if t.case_count]
