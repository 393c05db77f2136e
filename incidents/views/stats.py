"""`/stats`: charts over the published cases, drawn as SVG on the server."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import pluralize
from django.urls import reverse

from incidents import selectors
from incidents.selectors.scale import SCALE_BANDS, band_of

from .charts import DURATION_BUCKETS, bar_chart, bucket_counts, column_chart
from .common import render_page

TOP_SHOWN = 12
SPARSE = 4  # a chart drawn from under a quarter of the cases says it is too thin to generalise


def _basis(known: int, total: int, what: str) -> str:
    """Which cases a chart is drawn from: all of them, or the `known` that report `what`."""
    if known == total:
        return f"From all {total} published case{pluralize(total)}."
    basis = f"From {known} of {total} published cases: those that report {what}."
    if known * SPARSE < total:
        basis += " Too few to read as a distribution."
    return basis


def stats(request: HttpRequest) -> HttpResponse:
    """`/stats`: cases per year, per kind (topic), per workload, root-cause categories, most
    frequent symptoms and components, accelerators, the scale bands of the `scale` facet
    (accelerator count) and time to resolve.

    Each chart says how many cases it is drawn from, and is an inline SVG (no script, no
    external service) followed by a table of the same numbers for screen readers.
    Accelerators are counted by family from the vocabulary (a model's cases count for its
    family; each bar links to the family filter). Data: `selectors.case_stats`
    (fixed 8 queries), `selectors.vocabulary("topic")` (1) and `selectors.vocabulary("workload")` (1).
    """
    data = selectors.case_stats()
    total = data.total
    per_year = dict(data.by_year)
    # Years without cases still get a (zero) column: the axis is time.
    years = range(min(per_year), max(per_year) + 1) if per_year else range(0)
    topics = sorted(
        (t for t in selectors.vocabulary("topic") if t.case_count), key=lambda t: (-t.case_count, t.name)
    )
    workloads = sorted(
        (t for t in selectors.vocabulary("workload") if t.case_count), key=lambda t: (-t.case_count, t.name)
    )
    per_band = {band.slug: 0 for band in SCALE_BANDS}
    for count in data.accelerator_counts:
        if (band := band_of(count)) is not None:
            per_band[band.slug] += 1
    cases = reverse("incidents:case-list")
    everyone = _basis(total, total, "")
    charts = [
        column_chart(
            "years",
            "Cases per year of publication",
            [(str(y), per_year.get(y, 0), f"{cases}?year={y}") for y in years],
            category_label="Year",
            basis=everyone,
        ),
        bar_chart(
            "kinds",
            "Cases per kind (topic)",
            [(t.name, t.case_count, f"{cases}?topic={t.slug}") for t in topics],
            category_label="Topic",
            basis=f"{everyone} A case has one to three topics, so the bars add up to more.",
        ),
        bar_chart(
            "workloads",
            "Cases per workload",
            [(t.name, t.case_count, f"{cases}?workload={t.slug}") for t in workloads],
            category_label="Workload",
            basis=_basis(sum(t.case_count for t in workloads), total, "a workload"),
        ),
        bar_chart(
            "root-causes",
            "Root-cause categories",
            [(t.name, n, f"{cases}?root_cause={t.slug}") for t, n in data.by_root_cause],
            category_label="Root-cause category",
            basis=f"{everyone} Each case has one category.",
        ),
        bar_chart(
            "symptoms",
            "Most frequent symptoms",
            [(t.name, n, f"{cases}?symptom={t.slug}") for t, n in data.by_symptom[:TOP_SHOWN]],
            category_label="Symptom",
            basis=f"{everyone} The {TOP_SHOWN} most frequent; a case can show several.",
        ),
        bar_chart(
            "components",
            "Most frequent components",
            [(t.name, n, f"{cases}?component={t.slug}") for t, n in data.by_component[:TOP_SHOWN]],
            category_label="Component",
            basis=f"{everyone} The {TOP_SHOWN} most frequent; a case can name several.",
        ),
        column_chart(
            "scale",
            "Cases by scale (accelerators in the job or cluster)",
            [
                (band.label.removesuffix(" accelerators"), per_band[band.slug], f"{cases}?scale={band.slug}")
                for band in SCALE_BANDS
            ],
            category_label="Scale band",
            basis=_basis(len(data.accelerator_counts), total, "an accelerator count"),
        ),
        bar_chart(
            "accelerators",
            "Accelerator families",
            [(t.name, n, t.get_filter_url()) for t, n in data.by_accelerator_family],
            category_label="Accelerator family",
            basis=(
                f"{_basis(data.with_accelerator, total, 'an accelerator')} Models are grouped into "
                "their family (A100 40GB and 80GB count as A100)."
            ),
        ),
        column_chart(
            "time-to-resolve",
            "Time to resolve",
            [(label, n, None) for label, n in bucket_counts(data.time_to_resolve_seconds, DURATION_BUCKETS)],
            category_label="Time to resolve",
            basis=_basis(len(data.time_to_resolve_seconds), total, "a time to resolve"),
        ),
    ]
    return render_page(
        request, "incidents/stats.html", {"stats": data, "charts": charts}, json_url=reverse("api:stats")
    )
