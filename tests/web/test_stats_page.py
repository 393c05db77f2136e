"""`/stats`: SVG charts drawn on the server, each with a table of the same numbers."""

from __future__ import annotations

import re

import pytest

from incidents.models import Case
from incidents.selectors import case_stats
from incidents.selectors.scale import band_of
from incidents.views.charts import DURATION_BUCKETS, bar_chart, bucket_counts, column_chart

from .html import element, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def html(client) -> str:
    response = client.get("/stats")
    assert response.status_code == 200
    return response.content.decode()


def table_rows(figure: str) -> list[tuple[str, str]]:
    table = element(figure, "table")
    return [
        (text_of(th), text_of(td))
        for th, td in re.findall(r'<tr><th scope="row">(.*?)</th><td>(.*?)</td></tr>', table)
    ]


def test_every_chart_is_an_svg_with_a_table_fallback(html):
    titles = [
        "Cases per year of publication",
        "Cases per kind (topic)",
        "Cases per workload",
        "Root-cause categories",
        "Most frequent symptoms",
        "Most frequent components",
        "Cases by scale (accelerators in the job or cluster)",
        "Accelerator families",
        "Time to resolve",
    ]
    for title in titles:
        assert f">{title}</h2>" in html
    assert html.count('<svg class="chart-svg') == len(titles)
    charts = element(html, "div", class_="charts")
    assert charts.count('aria-hidden="true" focusable="false"') == len(titles)
    assert html.count('<table class="chart-table">') == len(titles)


def test_years_count_every_year_including_empty_ones(html):
    stats = case_stats()
    per_year = dict(stats.by_year)
    figure = element(html, "figure", aria_labelledby="chart-years-h")
    first, last = min(per_year), max(per_year)
    assert table_rows(figure) == [(str(y), str(per_year.get(y, 0))) for y in range(first, last + 1)]


def test_root_causes_and_symptoms_match_the_counts(html):
    stats = case_stats()
    causes = element(html, "figure", aria_labelledby="chart-root-causes-h")
    assert table_rows(causes) == [(t.name, str(n)) for t, n in stats.by_root_cause]
    assert 'href="/cases/?root_cause=hardware-fault"' in causes
    symptoms = element(html, "figure", aria_labelledby="chart-symptoms-h")
    assert table_rows(symptoms) == [(t.name, str(n)) for t, n in stats.by_symptom[:12]]


def test_scale_chart_counts_cases_per_band_of_the_scale_facet(html):
    stats = case_stats()
    scale = element(html, "figure", aria_labelledby="chart-scale-h")
    published = Case.objects.published()
    expected = [
        ("Under 64", published.filter(accelerator_count__lt=64).count()),
        ("64–1,023", published.filter(accelerator_count__gte=64, accelerator_count__lte=1023).count()),
        ("1,024–9,999", published.filter(accelerator_count__gte=1024, accelerator_count__lte=9999).count()),
        ("10,000+", published.filter(accelerator_count__gte=10_000).count()),
    ]
    assert table_rows(scale) == [(label, str(n)) for label, n in expected]
    assert sum(n for _, n in expected) == len(stats.accelerator_counts)
    for slug in ("under-64", "64-1023", "1024-9999", "10000-plus"):
        assert f'href="/cases/?scale={slug}"' in scale
    assert (
        f"From {len(stats.accelerator_counts)} of {stats.total} published cases: "
        "those that report an accelerator count." in (text_of(scale))
    )


def test_nothing_is_loaded_from_elsewhere(html):
    assert "<script" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html.split("<main")[0])


def test_the_json_twin_is_api_stats(client):
    assert client.get("/stats")["Link"] == '</api/stats>; rel="alternate"; type="application/json"'


def test_buckets_put_each_value_in_exactly_one_bucket():
    bands = [band_of(n).slug for n in (0, 63, 64, 1023, 1024, 9999, 10_000, 100_000)]
    assert (
        bands == ["under-64", "under-64", "64-1023", "64-1023", "1024-9999", "1024-9999"] + ["10000-plus"] * 2
    )
    assert band_of(None) is None
    assert bucket_counts([59 * 60, 3600, 86400 * 8], DURATION_BUCKETS)[0] == ("under 1 hour", 1)


def test_bars_scale_to_the_largest_value_and_columns_share_the_width():
    bars = bar_chart("x", "X", [("a", 10, None), ("b", 5, "/b"), ("c", 0, None)], category_label="c")
    assert [b.percent for b in bars.bars] == [100.0, 50.0, 0.0]
    assert bars.height == 3 * 44
    columns = column_chart("y", "Y", [("2020", 4, None), ("2021", 2, None)], category_label="Year")
    assert [(c.x, c.width, c.height) for c in columns.bars] == [(7.5, 35.0, 160.0), (57.5, 35.0, 80.0)]
    assert bar_chart("e", "E", [], category_label="c").bars == []


def test_every_chart_says_how_many_cases_it_is_drawn_from(html):
    stats = case_stats()
    total = stats.total
    basis = dict(re.findall(r'<p class="chart-basis" id="chart-([a-z-]+)-basis">(.*?)</p>', html))
    assert set(basis) == {
        "years",
        "kinds",
        "workloads",
        "root-causes",
        "symptoms",
        "components",
        "scale",
        "accelerators",
        "time-to-resolve",
    }
    assert basis["years"] == f"From all {total} published cases."
    assert basis["root-causes"].startswith(f"From all {total} published cases.")
    scale = len(stats.accelerator_counts)
    assert basis["scale"].startswith(
        f"From {scale} of {total} published cases: those that report an accelerator count."
    )
    ttr = len(stats.time_to_resolve_seconds)
    assert basis["time-to-resolve"].startswith(
        f"From {ttr} of {total} published cases: those that report a time to resolve."
    )
    # The fixture cases report a TTR in under a quarter of cases: the chart says so.
    assert ttr * 4 < total and basis["time-to-resolve"].endswith("Too few to read as a distribution.")
    # Each case counts once, for its accelerator's family.
    named = Case.objects.published().exclude(accelerator=None).count()
    assert named == sum(n for _, n in stats.by_accelerator_family)
    assert basis["accelerators"].startswith(f"From {named} of {total} published cases")


def test_the_kind_chart_counts_cases_per_topic(html):
    figure = element(html, "figure", aria_labelledby="chart-kinds-h")
    rows = dict(table_rows(figure))
    hangs = Case.objects.published().filter(terms__facet="topic", terms__slug="training-hang").count()
    assert rows["Training hangs"] == str(hangs)
    assert '<a href="/cases/?topic=training-hang">' in figure


def test_the_workload_chart_counts_cases_per_workload(html):
    figure = element(html, "figure", aria_labelledby="chart-workloads-h")
    rows = dict(table_rows(figure))
    published = Case.objects.published()
    for slug, name in (("training", "Training"), ("inference", "Inference"), ("fleet", "Fleet-wide")):
        assert rows[name] == str(published.filter(terms__facet="workload", terms__slug=slug).count())
    assert '<a href="/cases/?workload=inference">' in figure
