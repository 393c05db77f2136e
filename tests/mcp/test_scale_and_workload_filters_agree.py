"""The scale facet, the numeric bounds and the workload filter mean the same on all three
front doors: the /cases/ page, GET /api/cases/ and the MCP list_incidents tool.

The expected cases are computed here from the case rows with plain ORM filters (not through
the parser or the facet registry), and every front door must list exactly those; bad numbers
are refused by each in its own way (page notice, API 400 naming the parameter, tool error).
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from incidents.models import Case

pytestmark = pytest.mark.django_db

published = Case.objects.published


def workload(slug: str):
    return published().filter(terms__facet="workload", terms__slug=slug)


# (query parameters, MCP arguments, the expected cases as a plain queryset)
FILTERS = {
    "scale band": (
        [("scale", "10000-plus")],
        {"scale": "10000-plus"},
        lambda: published().filter(accelerator_count__gte=10_000),
    ),
    "two scale bands, spelled as labels": (
        [("scale", "Under 64 accelerators"), ("scale", "64–1,023")],
        {"scale": ["Under 64 accelerators", "64–1,023"]},
        lambda: published().filter(accelerator_count__lt=1024),
    ),
    "excluded band": (
        [("exclude_scale", "under-64"), ("min_accelerators", "1")],
        {"exclude": ["scale:under-64"], "min_accelerators": 1},
        lambda: published().filter(accelerator_count__gte=64),
    ),
    "accelerator range": (
        [("min_accelerators", "64"), ("max_accelerators", "1024")],
        {"min_accelerators": 64, "max_accelerators": 1024},
        lambda: published().filter(accelerator_count__gte=64, accelerator_count__lte=1024),
    ),
    "node range": (
        [("min_nodes", "8"), ("max_nodes", "64")],
        {"min_nodes": 8, "max_nodes": 64},
        lambda: published().filter(node_count__gte=8, node_count__lte=64),
    ),
    "workload and scale": (
        [("workload", "training"), ("min_accelerators", "1024")],
        {"workload": "training", "min_accelerators": 1024},
        lambda: workload("training").filter(accelerator_count__gte=1024),
    ),
    "kind and workload": (
        [("topic", "interconnect"), ("workload", "Inference")],
        {"topic": "interconnect", "workload": "Inference"},
        lambda: workload("inference").filter(id__in=published().filter(terms__slug="interconnect")),
    ),
    "a former topic is the workload": (
        [("topic", "training"), ("max_nodes", "48")],
        {"topic": "training", "max_nodes": 48},
        lambda: workload("training").filter(node_count__lte=48),
    ),
}


def page_total(client, params) -> int:
    html = client.get("/cases/?" + urlencode(params)).content.decode()
    count = re.search(r'<p id="result-count"[^>]*>\s*(.*?)</p>', html, re.S)
    assert count, html
    text = count.group(1)
    if text.startswith("No cases"):
        return 0
    return int(re.search(r"(\d+) cases?\b", text).group(1))


@pytest.mark.parametrize("name", FILTERS)
def test_the_page_the_api_and_the_tool_list_the_same_cases(client, mcp, name):
    params, arguments, expected_cases = FILTERS[name]
    expected = sorted(expected_cases().values_list("id", flat=True).distinct())
    assert expected, "each filter must find something, or agreement proves little"

    api = client.get("/api/cases/?" + urlencode([*params, ("page_size", "100")]))
    assert api.status_code == 200, api.content
    assert sorted(c["id"] for c in api.json()["results"]) == expected

    tool = mcp.ok("list_incidents", limit=50, **arguments)
    assert sorted(c["id"] for c in tool["incidents"]) == expected
    assert tool["total"] == len(expected)

    assert page_total(client, params) == len(expected)


def test_the_scale_facet_counts_each_band(client):
    body = client.get("/api/cases/?page_size=1").json()
    counts = {f["value"]: f["count"] for f in body["facets"]["scale"]}
    assert counts == {
        slug: n
        for slug, n in (
            ("under-64", published().filter(accelerator_count__lt=64).count()),
            ("64-1023", published().filter(accelerator_count__gte=64, accelerator_count__lt=1024).count()),
            (
                "1024-9999",
                published().filter(accelerator_count__gte=1024, accelerator_count__lt=10_000).count(),
            ),
            ("10000-plus", published().filter(accelerator_count__gte=10_000).count()),
        )
        if n
    }
    html = client.get("/cases/").content.decode()
    assert 'id="facet-scale-h">Scale</h3>' in html
    assert 'href="/cases/?scale=10000-plus"' in html
    assert 'id="facet-workload-h">Workload</h3>' in html


BAD = [
    ("min_accelerators", "lots", "must be a whole number from 0 to 10,000,000"),
    ("max_accelerators", "-5", "must be a whole number from 0 to 10,000,000"),
    ("min_nodes", "1.5", "must be a whole number from 0 to 10,000,000"),
    ("max_nodes", "99999999999", "must be a whole number from 0 to 10,000,000"),
    ("scale", "huge", "unknown scale 'huge'"),
]


@pytest.mark.parametrize(("parameter", "value", "detail"), BAD)
def test_bad_values_are_refused_on_every_front_door(client, mcp, parameter, value, detail):
    response = client.get(f"/api/cases/?{parameter}={value}")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["parameter"], error["detail"]) == (parameter, detail)

    html = client.get(f"/cases/?{parameter}={value}").content.decode()
    notice = re.search(r'<div class="note notice" role="status">(.*?)</div>', html, re.S)
    assert notice and value in notice.group(1)

    argument: object = value
    if parameter != "scale" and value.lstrip("-").isdigit():
        argument = int(value)
    message = mcp.error("list_incidents", **{parameter: argument})
    assert parameter in message


def test_a_max_below_its_min_is_refused_on_every_front_door(client, mcp):
    response = client.get("/api/cases/?min_nodes=64&max_nodes=8")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error == {**error, "parameter": "max_nodes", "detail": "must not be less than min_nodes (64)"}
    html = client.get("/cases/?min_nodes=64&max_nodes=8").content.decode()
    assert "Max nodes: must not be less than min_nodes (64)" in html
    message = mcp.error("list_incidents", min_nodes=64, max_nodes=8)
    assert message == "max_nodes: must not be less than min_nodes (64) (got '8')."


def test_a_bound_shows_as_a_removable_chip(client):
    html = client.get("/cases/?workload=training&min_accelerators=1024").content.decode()
    assert "Accelerators:</span> at least 1,024" in html
    assert 'href="/cases/?workload=training"' in html
