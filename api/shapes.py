"""Output shapes of the API, built from selector and search results.

Plain functions returning JSON-ready dicts; `api.serializers` describes each shape for the
OpenAPI schema (and tests check real answers against that schema). URLs are absolute.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from rest_framework.request import Request

from incidents.codes import error_code_fields
from incidents.models import VOCAB_FACETS, Case, Facet, Term
from incidents.rendering import snippet_html
from incidents.search.results import FacetCount, FoundCode, LogHit, LogReading, SearchHit, SimilarCase
from incidents.selectors import CaseRecord, CaseStats, CodeDetail, TopicOverview
from incidents.selectors.scale import SCALE_BANDS, band_of
from incidents.selectors.summaries import case_summary_fields


def absolute(request: Request, path: str) -> str:
    return request.build_absolute_uri(path)


def case_url(request: Request, case_id: str) -> str:
    return absolute(request, reverse("api:case-detail", args=[case_id]))


def cases_url(request: Request, **params: str) -> str:
    """The API case list filtered by `params` (e.g. `symptom="nccl-timeout"`)."""
    return absolute(request, f"{reverse('api:case-list')}?{urlencode(params)}")


def case_summary(case: Case, request: Request) -> dict[str, Any]:
    """A case in a list (the read layer's one summary shape, `case_summary_fields`, plus its
    JSON and page URLs for this request's host; no queries)."""
    return {
        **case_summary_fields(case),
        "url": case_url(request, case.id),
        "html_url": absolute(request, case.get_absolute_url()),
    }


def related_case(case: Case, request: Request) -> dict[str, Any]:
    """A hand-linked case (`RelatedCaseSerializer`): id, title and its URLs; no queries."""
    return {
        "id": case.id,
        "title": case.title,
        "url": case_url(request, case.id),
        "html_url": absolute(request, case.get_absolute_url()),
    }


def search_hit(hit: SearchHit, request: Request, fields: Sequence[str] | None) -> dict[str, Any]:
    """A summary plus `score`, `confidence`, `snippet`, `matched_terms`, `why`, `like`; only `fields` (and
    `id`) if given. `SearchHitSerializer` describes these keys, and `fields` accepts its
    fields (`api.views.cases.HIT_FIELDS`): a key added here needs its field there."""
    entry = case_summary(hit.case, request)
    entry["score"] = hit.score
    entry["confidence"] = hit.confidence
    entry["snippet"] = snippet_html(hit.snippet)
    entry["matched_terms"] = list(hit.matched_terms)
    entry["why"] = hit.why
    entry["like"] = hit.like
    return only_fields(entry, fields)


def only_fields(entry: Mapping[str, Any], fields: Sequence[str] | None) -> dict[str, Any]:
    """`entry` trimmed to `fields` and `id` (a case list's hits, a case detail); all of it
    when `fields` is None."""
    if fields is None:
        return dict(entry)
    return {key: value for key, value in entry.items() if key == "id" or key in fields}


# What a trimmed answer for a case that is not published keeps whatever `fields` names:
# `?fields=title` of a retracted case read as a published one's.
UNPUBLISHED_KEEPS = ("status", "retraction_reason")


def detail_fields(detail: Mapping[str, Any], fields: Sequence[str] | None) -> dict[str, Any]:
    """A case detail (`CaseDetailSerializer`'s data) trimmed by `fields` (`only_fields`), a
    case not published (retracted) keeping its `status` and `retraction_reason` too
    (`UNPUBLISHED_KEEPS`), so no trimmed answer hides the retraction."""
    trimmed = only_fields(detail, fields)
    if fields is not None and detail.get("status") != "published":
        trimmed.update({key: detail[key] for key in UNPUBLISHED_KEEPS if key in detail})
    return trimmed


def facet_counts(facets: dict[str, list[FacetCount]]) -> dict[str, list[dict[str, Any]]]:
    return {
        name: [{"value": c.value, "label": c.label, "count": c.count} for c in counts]
        for name, counts in facets.items()
    }


def case_detail(record: CaseRecord, request: Request) -> dict[str, Any]:
    """The values of `CaseDetailSerializer`: the schema document unchanged and the fields the
    API adds to it (`record`: `selectors.case_record`, or `selectors.record_of(case)`)."""
    return {
        "document": record.document,
        "url": case_url(request, record.id),
        "html_url": absolute(request, record.get_absolute_url()),
        "similar_url": absolute(request, reverse("api:case-similar", args=[record.id])),
        "history_url": absolute(request, reverse("api:case-history", args=[record.id])),
        "modified": record.modified,
        "retraction_reason": record.retraction_reason if record.retracted else None,
    }


def similar_case(similar: SimilarCase, request: Request) -> dict[str, Any]:
    entry = case_summary(similar.case, request)
    entry["score"] = similar.score
    entry["similarity"] = similar.label
    entry["reasons"] = list(similar.reasons)
    entry["shared_terms"] = {facet: list(names) for facet, names in similar.shared_terms.items()}
    entry["score_parts"] = dict(similar.score_parts)
    return entry


def log_hit(hit: LogHit, request: Request) -> dict[str, Any]:
    entry = case_summary(hit.case, request)
    entry["score"] = hit.score
    entry["confidence"] = hit.confidence
    entry["why"] = hit.why
    entry["like"] = hit.like
    # Each matched line once with every term it matched, as MCP's match_log and the /match/
    # page give them (`LogHit.lines`); earlier versions gave one entry per (line, term), with
    # `term`, beside the deduplicated `lines`.
    entry["matched_lines"] = [
        {"line_number": m.line_number, "line": m.line, "terms": list(m.terms), "occurrences": m.occurrences}
        for m in hit.lines
    ]
    entry["lines"] = [
        {
            "line_number": m.line_number,
            "line": m.line,
            "terms": list(m.terms),
            "spans": [list(s) for s in m.spans],
            "occurrences": m.occurrences,
        }
        for m in hit.lines
    ]
    return entry


def log_reading(reading: LogReading) -> dict[str, Any]:
    return {
        "lines_read": reading.lines_read,
        "lines_with_signature": reading.lines_with_signature,
        "lines_context": reading.lines_context,
        "lines_ignored": reading.lines_ignored,
        "lines_repeated": reading.lines_repeated,
        "lines_blank": reading.lines_blank,
        "job_kind": reading.job_kind,
    }


def term_entry(term: Term, request: Request, families: dict[int, str] | None = None) -> dict[str, Any]:
    """A vocabulary term annotated with `case_count` (published cases using it); an
    accelerator also with `vendor` and `family` (the family's slug, its own for a family;
    `families` maps term ids to slugs, else the family is read from the term)."""
    entry = {
        "slug": term.slug,
        "name": term.name,
        "description": term.description,
        "synonyms": list(term.synonyms),
        "case_count": term.case_count,
        "cases_url": cases_url(request, **{term.facet: term.slug}),
    }
    if term.facet == Facet.ACCELERATOR:
        entry["vendor"] = term.vendor
        if term.family_id is None:
            entry["family"] = term.slug
        else:
            entry["family"] = families[term.family_id] if families else term.family.slug  # type: ignore[union-attr]
    return entry


def family_slugs(terms: list[Term]) -> dict[int, str]:
    """Term id -> slug of the accelerators in `terms`, so entries name their family without
    a query each."""
    return {term.id: term.slug for term in terms if term.facet == Facet.ACCELERATOR}


def term_count(term: Term, count: int, request: Request) -> dict[str, Any]:
    return {
        "slug": term.slug,
        "name": term.name,
        "count": count,
        "cases_url": cases_url(request, **{term.facet: term.slug}),
    }


def topic_entry(term: Term, request: Request) -> dict[str, Any]:
    entry = term_entry(term, request)
    entry["url"] = absolute(request, reverse("api:topic-detail", args=[term.slug]))
    return entry


def topic_overview(overview: TopicOverview, request: Request) -> dict[str, Any]:
    topic = overview.topic
    return {
        "slug": topic.slug,
        "name": topic.name,
        "description": topic.description,
        "synonyms": list(topic.synonyms),
        "case_count": overview.case_count,
        "url": absolute(request, reverse("api:topic-detail", args=[topic.slug])),
        "cases_url": cases_url(request, topic=topic.slug),
        "top_symptoms": [term_count(t, n, request) for t, n in overview.top_symptoms],
        "top_root_causes": [term_count(t, n, request) for t, n in overview.top_root_causes],
        "top_components": [term_count(t, n, request) for t, n in overview.top_components],
        "latest_cases": [case_summary(case, request) for case in overview.latest_cases],
    }


def vocabulary(terms: list[Term], request: Request) -> dict[str, list[dict[str, Any]]]:
    """Terms grouped by facet (every facet present, possibly empty), names in order."""
    grouped: dict[str, list[dict[str, Any]]] = {str(facet): [] for facet in VOCAB_FACETS}
    families = family_slugs(terms)
    for term in terms:
        grouped[term.facet].append(term_entry(term, request, families))
    return grouped


# Time-to-resolve buckets: (label, lower bound inclusive, upper bound exclusive or None).
RESOLVE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("under 1 hour", 0, 3600),
    ("1 to 6 hours", 3600, 6 * 3600),
    ("6 to 24 hours", 6 * 3600, 86400),
    ("1 to 7 days", 86400, 7 * 86400),
    ("7 days or more", 7 * 86400, None),
)


def _nearest_rank(ordered: Sequence[int], fraction: float) -> int | None:
    """The nearest-rank percentile of ascending `ordered` (a value that occurs), or None."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def distribution(ordered: Sequence[int], total: int) -> dict[str, Any]:
    """`known` / `unknown` counts and min, quartiles, p90, max of ascending values."""
    return {
        "known": len(ordered),
        "unknown": total - len(ordered),
        "min": ordered[0] if ordered else None,
        "p25": _nearest_rank(ordered, 0.25),
        "median": _nearest_rank(ordered, 0.5),
        "p75": _nearest_rank(ordered, 0.75),
        "p90": _nearest_rank(ordered, 0.9),
        "max": ordered[-1] if ordered else None,
    }


def stats(data: CaseStats, request: Request) -> dict[str, Any]:
    resolve = distribution(data.time_to_resolve_seconds, data.total)
    resolve["buckets"] = [
        {
            "label": label,
            "min_seconds": low,
            "max_seconds": high,
            "count": sum(1 for s in data.time_to_resolve_seconds if s >= low and (high is None or s < high)),
        }
        for label, low, high in RESOLVE_BUCKETS
    ]
    return {
        "total": data.total,
        "by_year": [
            {"year": year, "count": n, "cases_url": cases_url(request, year=str(year))}
            for year, n in data.by_year
        ],
        "by_root_cause": [term_count(t, n, request) for t, n in data.by_root_cause],
        "by_symptom": [term_count(t, n, request) for t, n in data.by_symptom],
        "by_component": [term_count(t, n, request) for t, n in data.by_component],
        "by_accelerator": [accelerator_count(t, n, request) for t, n in data.by_accelerator],
        "by_accelerator_family": [accelerator_count(t, n, request) for t, n in data.by_accelerator_family],
        "time_to_resolve_seconds": resolve,
        "accelerator_count": distribution(data.accelerator_counts, data.total),
        "by_scale": [
            {
                "scale": band.slug,
                "label": band.label,
                "min_accelerators": band.low,
                "max_accelerators": band.high - 1 if band.high is not None else None,
                "count": sum(1 for n in data.accelerator_counts if band_of(n) == band),
                "cases_url": cases_url(request, scale=band.slug),
            }
            for band in SCALE_BANDS
        ],
    }


def accelerator_count(term: Term, count: int, request: Request) -> dict[str, Any]:
    """An accelerator term of the stats: name, slug, vendor, count and filtered list."""
    return {
        "accelerator": term.name,
        "slug": term.slug,
        "vendor": term.vendor,
        "is_family": term.family_id is None,
        "count": count,
        "cases_url": cases_url(request, accelerator=term.slug),
    }


def change(row: dict[str, Any], request: Request) -> dict[str, Any]:
    return {
        "id": row["id"],
        "status": row["status"],
        "modified": row["modified"].isoformat().replace("+00:00", "Z"),
        "url": case_url(request, row["id"]),
        "merged_into": row["merged_into"],
    }


def error_code(term: Term, request: Request, *, case_count: int | None = None) -> dict[str, Any]:
    """An error code's entry (`ErrorCodeSerializer`): no queries."""
    return {
        **error_code_fields(term, case_count=case_count),
        "url": absolute(request, reverse("api:code-detail", args=[term.slug])),
        "html_url": absolute(request, term.get_absolute_url()),
    }


def found_error_code(found: FoundCode, request: Request) -> dict[str, Any]:
    """An error code a pasted log shows (`FoundErrorCodeSerializer`): the code's entry and
    the lines it was found on (no queries)."""
    return {**error_code(found.term, request), "line_numbers": list(found.line_numbers)}


def error_code_detail(detail: CodeDetail, request: Request) -> dict[str, Any]:
    """`ErrorCodeDetailSerializer`: the code, its root causes, checks and cases (no queries)."""
    return {
        **error_code(detail.term, request, case_count=detail.case_count),
        "root_causes": [
            {"slug": row.cause.slug, "name": row.cause.name, "count": row.count, "total": row.total}
            for row in detail.root_causes
        ],
        "checks": [{"text": check.text, "case_id": check.case_id} for check in detail.checks],
        "cases": [case_summary(case, request) for case in detail.cases],
    }
