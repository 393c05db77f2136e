"""An unknown case id names the existing ids nearest to what was typed, the same at every
door: the API's 404 (case and /similar), the case page's 404 and MCP's get_incident and
similar_incidents, all through `selectors.find_case`. An id with a digit too many named
the ids nearest to the number typed, ten times too big: `IL-04290` gave IL-0492 and
IL-0490 before IL-0429."""

from __future__ import annotations

import re

import pytest

from incidents.selectors import find_case
from incidents.selectors.spelling import closest_case_ids
from tests.mcp.conftest import InMemoryMcp
from tests.web.html import links

pytestmark = pytest.mark.django_db

# What was typed -> the ids named, in order (IL-0048, IL-4290, IL-4280 do not exist).
NEAREST = {
    "IL-04290": ["IL-0429", "IL-0490", "IL-0492"],  # a 0 too many at the end, a 2, the digits swapped
    "IL-4290": ["IL-0492", "IL-0490", "IL-0429"],  # as many digits as an id: by number
    "IL-04280": ["IL-0428", "IL-0480", "IL-0482"],
    "IL-9428": ["IL-0428", "IL-0637", "IL-0635"],  # one wrong digit, then the nearest numbers
    "IL-0440": ["IL-0439", "IL-0441", "IL-0438"],  # a number no case has: its neighbours
}


@pytest.mark.parametrize(("typed", "nearest"), NEAREST.items())
def test_find_case_names_the_nearest_ids_in_order(typed, nearest):
    lookup = find_case(typed)
    assert (lookup.case, lookup.canonical_id, lookup.closest) == (None, None, nearest)


def test_an_extra_last_digit_is_dropped_before_an_inner_one():
    # All three are one keystroke from what was typed; dropping its last digit gives IL-0429.
    for ids in (["IL-0429", "IL-0490", "IL-0492"], ["IL-0492", "IL-0490", "IL-0429"]):
        assert closest_case_ids("IL-04290", ids) == ["IL-0429", "IL-0490", "IL-0492"]
    assert closest_case_ids("IL-04920", ["IL-0429", "IL-0490", "IL-0492"])[0] == "IL-0492"


def test_a_digit_too_few_is_not_read_as_one_too_many():
    # IL-0440 has an id's four digits: its neighbours come first, not IL-0044, which
    # dropping a last digit that was never typed would give.
    ids = [f"IL-{n:04d}" for n in range(1, 701) if n not in (123, 440)]
    assert closest_case_ids("IL-0440", ids) == ["IL-0439", "IL-0441", "IL-0438"]
    assert closest_case_ids("IL-0123", ids) == ["IL-0122", "IL-0124", "IL-0121"]
    assert closest_case_ids("IL-04410", ids)[0] == "IL-0441"  # a digit too many: dropped


@pytest.mark.parametrize("path", ["/api/cases/{}", "/api/cases/{}/similar"])
def test_the_api_404_names_them(client, path):
    response = client.get(path.format("IL-04290"))
    assert response.status_code == 404
    assert response.json()["errors"] == [
        {
            "parameter": "case_id",
            "detail": "no published or retracted case has this id",
            "value": "IL-04290",
            "suggestions": NEAREST["IL-04290"],
        }
    ]


def test_a_missing_leading_zero_is_the_same_id(client):
    response = client.get("/api/cases/IL-429/similar")
    assert (response.status_code, response["Location"]) == (301, "/api/cases/IL-0429/similar")
    assert InMemoryMcp().ok("similar_incidents", id="IL-429", limit=1)["id"] == "IL-0429"


def test_the_case_page_404_links_them(client):
    response = client.get("/cases/IL-04290")
    assert response.status_code == 404
    hrefs = [href for href, _ in links(response.content.decode()) if re.fullmatch(r"/cases/IL-\d+", href)]
    assert hrefs == [f"/cases/{case_id}" for case_id in NEAREST["IL-04290"]]


@pytest.mark.parametrize("tool", ["get_incident", "similar_incidents"])
def test_mcp_names_them(tool):
    assert InMemoryMcp().error(tool, id="IL-04290") == (
        "No incident 'IL-04290'. Closest ids: IL-0429, IL-0490, IL-0492. "
        "To find incidents by what happened, use search_incidents."
    )


@pytest.mark.parametrize("path", ["/api/cases/{}", "/api/cases/{}/similar", "/api/cases/{}/history"])
def test_an_id_out_of_shape_with_digits_names_them_too(client, path):
    # The API answered `IL-0427x` with a hint only, where the page and MCP named ids.
    closest = find_case("IL-0427x").closest
    assert closest[0] == "IL-0428"
    response = client.get(path.format("IL-0427x"))
    assert response.status_code == 404
    [error] = response.json()["errors"]
    assert error == {
        "parameter": "case_id",
        "detail": "ids look like IL-0428",
        "value": "IL-0427x",
        "suggestions": closest,
    }
    assert (
        InMemoryMcp()
        .error("get_incident", id="IL-0427x")
        .startswith(f"No incident 'IL-0427x'. Closest ids: {', '.join(closest)}.")
    )
