"""Reads of the vocabulary: terms with case counts, a topic's overview, a term's page.

Every facet, the root cause included, is read from case-term rows, one way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from .. import store_cache
from ..models import VOCAB_FACETS, Case, Facet, Term
from .cases import cases_with_term
from .facets import TERM_FACETS
from .spelling import resolve_term


def vocabulary(facet: Facet | str | None = None) -> list[Term]:
    """Terms with `case_count` (published cases), ordered by facet and name: one query for
    every facet of `VOCAB_FACETS` or one facet."""
    return terms_with_case_counts([facet] if facet else VOCAB_FACETS)


def terms_with_case_counts(facets: Iterable[str]) -> list[Term]:
    """Terms of `facets` ordered by facet and name, each with `case_count`: the published
    cases carrying it (every facet, root-cause categories included, is a case-term row).

    From the shared cache for the current store generation (`store_cache`); when not
    cached, one query joining a grouped count, the published ids read once as a set (a
    join per link costs 4x more on SQLite).
    """
    facets = sorted(str(f) for f in facets)
    if not facets:
        return []
    return store_cache.cached("terms-with-counts:" + ",".join(facets), lambda: _count_terms(facets))


def _count_terms(facets: list[str]) -> list[Term]:
    marks = ", ".join(["%s"] * len(facets))
    sql = f"""
        SELECT t.*, COALESCE(l.n, 0) AS case_count
        FROM incidents_term t
        LEFT JOIN (SELECT ct.term_id, COUNT(*) AS n FROM incidents_caseterm ct
                   WHERE ct.case_id IN (SELECT id FROM incidents_case WHERE status = %s)
                   GROUP BY ct.term_id) l ON l.term_id = t.id
        WHERE t.facet IN ({marks})
        ORDER BY t.facet, t.name
    """
    published = Case.Status.PUBLISHED
    return list(Term.objects.raw(sql, [published, *facets]))


def terms_with_counts(
    facet: Facet | str, case_ids: QuerySet, *, limit: int | None = None, leave_out: Term | None = None
) -> list[tuple[Term, int]]:
    """Terms of `facet` used by the cases in `case_ids` (a `values("id")` queryset) with how
    many of those cases use each, most frequent first: one query."""
    terms = (
        Term.objects.of(facet).filter(case_links__case__in=case_ids).annotate(case_count=Count("case_links"))  # type: ignore[no-redef]
    )
    if leave_out is not None:
        terms = terms.exclude(id=leave_out.id)
    terms = terms.order_by("-case_count", "name")
    return [(t, t.case_count) for t in (terms[:limit] if limit else terms)]


@dataclass(frozen=True)
class TopicOverview:
    """What one topic holds: its term, case count, frequent co-occurring terms, latest cases."""

    topic: Term
    case_count: int
    top_symptoms: list[tuple[Term, int]]
    top_root_causes: list[tuple[Term, int]]
    top_components: list[tuple[Term, int]]
    latest_cases: list[Case]


def topic_overview(topic: Term | str, *, top: int = 5, latest: int = 5) -> TopicOverview | None:
    """The overview of a topic (a `Term`, or a slug looked up exactly), or None if there is
    no such topic. Fixed 6 queries, plus 1 to look a slug up."""
    if isinstance(topic, str):
        found = Term.objects.of(Facet.TOPIC).filter(slug=topic).first()
        if found is None:
            return None
        topic = found
    in_topic = Case.objects.published().filter(term_links__term=topic)
    ids = in_topic.values("id")

    return TopicOverview(
        topic=topic,
        case_count=in_topic.count(),
        top_symptoms=terms_with_counts(Facet.SYMPTOM, ids, limit=top),
        top_root_causes=terms_with_counts(Facet.ROOT_CAUSE, ids, limit=top),
        top_components=terms_with_counts(Facet.COMPONENT, ids, limit=top),
        latest_cases=list(in_topic.newest_first().with_summary()[:latest]),
    )


@dataclass(frozen=True)
class TermDetail:
    """One vocabulary term, its published cases and the terms most often used with it."""

    term: Term
    case_count: int
    cases: list[Case]  # newest first, at most `limit`
    co_occurring: dict[str, list[tuple[Term, int]]]  # facet -> (term, shared cases), most first
    chip: AcceleratorFamily | None = None  # accelerators: the family and its models


@dataclass(frozen=True)
class AcceleratorFamily:
    """An accelerator's place in its family: the family term and the family's models."""

    family: Term
    models: list[Term]


def term_detail(facet: str, slug: str, *, limit: int = 20, top: int = 8) -> TermDetail | None:
    """The term `slug` of `facet` with its cases and co-occurring terms, or None if unknown.

    `cases` holds the `limit` newest published cases using it (prefetched for case cards);
    `co_occurring` maps each term facet (the term's own included, the term itself and, for
    an accelerator, its family and models left out) to at most `top` terms ranked by how
    many of those cases also use them; `chip`, for an accelerator, its family and the
    family's models. Fixed 5 queries: term, count, cases with their term links (2),
    co-occurring terms of every facet in one grouped query; 6 for an accelerator (the
    family's models).
    """
    term = Term.objects.filter(facet=facet, slug=slug).select_related("family").first()
    if term is None:
        return None
    cases = cases_with_term(term)
    ids = cases.values("id")
    # A model always comes with its family: "seen with A100" on A100 80GB's page says nothing.
    others = Term.objects.filter(facet__in=TERM_FACETS, case_links__case__in=ids).exclude(id=term.id)
    if facet == Facet.ACCELERATOR:
        others = others.exclude(Q(id=term.family_id) | Q(family_id=term.id))
    rows = others.annotate(case_count=Count("case_links")).order_by("-case_count", "name")  # type: ignore[no-redef]
    co_occurring: dict[str, list[tuple[Term, int]]] = {other: [] for other in TERM_FACETS}
    for other in rows:
        if len(co_occurring[other.facet]) < top:
            co_occurring[other.facet].append((other, other.case_count))
    chip = None
    if facet == Facet.ACCELERATOR:
        family = term.family or term
        chip = AcceleratorFamily(
            family=family, models=list(Term.objects.filter(family=family).order_by("name"))
        )
    return TermDetail(
        term=term,
        case_count=cases.count(),
        cases=list(cases.newest_first().with_summary()[:limit]),
        co_occurring=co_occurring,
        chip=chip,
    )


def term_by_slug(facet: str, slug: str) -> Term | None:
    """The term `slug` of `facet` (a facet name), or None: one query."""
    return Term.objects.filter(facet=facet, slug=slug).first()


def find_term(facet: str, text: str) -> Term | None:
    """The term of `facet` that `text` names by slug, name or synonym in any letter case
    (`NCCL-timeout`, `NCCL timeout` -> nccl-timeout; `H100` -> h100), or None: one query.
    For a page asked by another spelling than the slug, to redirect to it."""
    return resolve_term(text, Term.objects.of(facet).only("facet", "slug", "name", "synonyms"))


def topic_exists(slug: str) -> bool:
    """Whether a topic has this slug: one indexed query."""
    return Term.objects.filter(facet="topic", slug=slug).exists()


def sitemap_terms() -> list[Term]:
    """Terms that at least one published case uses, error codes included, for the sitemap
    (one query)."""
    terms = terms_with_case_counts([*VOCAB_FACETS, Facet.ERROR_CODE])
    return sorted((t for t in terms if t.case_count), key=lambda t: (t.facet, t.slug))
