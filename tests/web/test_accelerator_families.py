"""The stats page's accelerator chart counts families, each bar listing the models it groups."""

from __future__ import annotations

from urllib.parse import quote_plus

import pytest

from incidents.accelerators import by_family, family_of
from incidents.models import Case
from tests.web.html import element
from tests.web.test_stats_page import table_rows


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("NVIDIA A100 80GB", "NVIDIA A100"),
        ("NVIDIA A100 40GB", "NVIDIA A100"),
        ("NVIDIA A100", "NVIDIA A100"),
        ("NVIDIA H100 80GB", "NVIDIA H100"),
        ("NVIDIA H100 SXM 80GB", "NVIDIA H100"),
        ("NVIDIA A100 PCIe", "NVIDIA A100"),
        ("NVIDIA A100 80GB (DGX A100)", "NVIDIA A100"),
        ("Google TPU v4", "Google TPU v4"),
        ("AMD MI300X", "AMD MI300X"),
        ("NVIDIA GB200", "NVIDIA GB200"),
    ],
)
def test_a_model_belongs_to_its_family(model, family):
    assert family_of(model) == family


def test_families_add_up_their_models():
    counts = [("NVIDIA A100 80GB", 8), ("NVIDIA A100", 7), ("NVIDIA V100", 6), ("NVIDIA A100 40GB", 1)]
    assert by_family(counts) == [
        ("NVIDIA A100", 16, ("NVIDIA A100", "NVIDIA A100 40GB", "NVIDIA A100 80GB")),
        ("NVIDIA V100", 6, ("NVIDIA V100",)),
    ]


@pytest.mark.django_db
def test_the_stats_chart_shows_families_linked_to_all_their_models(client):
    html = client.get("/stats").content.decode()
    figure = element(html, "figure", aria_labelledby="chart-accelerators-h")
    rows = dict(table_rows(figure))
    published = Case.objects.published().exclude(accelerator=None)
    a100 = published.filter(accelerator__startswith="NVIDIA A100").count()
    assert rows["NVIDIA A100"] == str(a100)
    a100_models = published.filter(accelerator__startswith="NVIDIA A100").values_list(
        "accelerator", flat=True
    )
    models = sorted({m for m in a100_models if m})
    link = "/cases/?" + "&amp;".join(f"accelerator={quote_plus(m)}" for m in models)
    assert f'href="{link}"' in figure
    assert not any(name.endswith("GB") for name in rows)
