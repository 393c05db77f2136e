"""`/stats`: charts over the published cases, drawn as SVG on the server."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from incidents import selectors

from .charts import DURATION_BUCKETS, SCALE_BUCKETS, bar_chart, bucket_counts, column_chart
from .common import render_page

TOP_SHOWN = 12


def stats(request: HttpRequest) -> HttpResponse:
    """`/stats`: cases per year, root-cause categories, most frequent symptoms and components,
    accelerators, the scale (accelerator count) and time to resolve of reported failures.

    Each chart is an inline SVG (no script, no external service) followed by a table of the
    same numbers for screen readers. Data: `selectors.case_stats` (fixed 8 queries).
    """
    data = selectors.case_stats()
    per_year = dict(data.by_year)
    # Years without cases still get a (zero) column: the axis is time.
    years = range(min(per_year), max(per_year) + 1) if per_year else range(0)
    cases = reverse("incidents:case-list")
    charts = [
        column_chart(
            "years",
            "Cases per year of publication",
            [(str(y), per_year.get(y, 0), f"{cases}?year={y}") for y in years],
            category_label="Year",
        ),
        bar_chart(
            "root-causes",
            "Root-cause categories",
            [(t.name, n, f"{cases}?root_cause={t.slug}") for t, n in data.by_root_cause],
            category_label="Root-cause category",
        ),
        bar_chart(
            "symptoms",
            "Most frequent symptoms",
            [(t.name, n, f"{cases}?symptom={t.slug}") for t, n in data.by_symptom[:TOP_SHOWN]],
            category_label="Symptom",
        ),
        bar_chart(
            "components",
            "Most frequent components",
            [(t.name, n, f"{cases}?component={t.slug}") for t, n in data.by_component[:TOP_SHOWN]],
            category_label="Component",
        ),
        column_chart(
            "scale",
            "Scale at which failures were reported",
            [(label, n, None) for label, n in bucket_counts(data.accelerator_counts, SCALE_BUCKETS)],
            category_label="Accelerators in the job",
            note=f"{len(data.accelerator_counts)} of {data.total} cases report an accelerator count.",
        ),
        bar_chart(
            "accelerators",
            "Accelerators",
            [(name, n, f"{cases}?{urlencode({'accelerator': name})}") for name, n in data.by_accelerator],
            category_label="Accelerator",
        ),
        column_chart(
            "time-to-resolve",
            "Time to resolve",
            [(label, n, None) for label, n in bucket_counts(data.time_to_resolve_seconds, DURATION_BUCKETS)],
            category_label="Time to resolve",
            note=f"{len(data.time_to_resolve_seconds)} of {data.total} cases report a time to resolve.",
        ),
    ]
    return render_page(
        request, "incidents/stats.html", {"stats": data, "charts": charts}, json_url=reverse("api:stats")
    )
