"""Every "did you mean" follows one rule (`selectors.spelling.closeness`, through
`nearest_strings` and `nearest_terms`): names of parameters, MCP arguments and methods, sort
names and an import's unknown terms were suggested by difflib's ratio (0.6, 0.8 for an MCP
argument's slip, 0.5 for an import), so `Xid 7900` was told 'Xid 95' and 'Xid 94' beside
'Xid 79', `tools/cal` 'tools/list', and `pubished_after` on the search page
`published_before`. Query words are corrected by their own, stricter rule
(`search.spelling`, tests/search/test_queries_as_people_type.py)."""

from __future__ import annotations

import pytest

from incidents.selectors.spelling import closeness, names_meant, nearest_strings
from tests.web.html import element, text_of

pytestmark = pytest.mark.django_db

PARAMETERS = ["q", "topic", "page", "page_size", "published_after", "published_before"]
PARAMETERS += ["scale_min", "scale_max"]


@pytest.mark.parametrize(
    ("typed", "values", "near"),
    [
        ("pages", PARAMETERS, ["page"]),  # `page_size` holds no `pages`, and is 4 slips away
        ("pubished_after", PARAMETERS, ["published_after"]),
        ("scale", PARAMETERS, ["scale_min", "scale_max"]),  # held whole by both: given order
        ("nope", ["enospc", "nccl"], []),  # letters in common are not closeness
        ("Xid 7900", ["Xid 79", "Xid 94", "Xid 95"], ["Xid 79"]),
        ("tools/cal", ["tools/list", "tools/call"], ["tools/call"]),
    ],
)
def test_nearest_strings_are_those_close_by_closeness_closest_first(typed, values, near):
    assert nearest_strings(typed, values) == near
    scores = [closeness(typed, value) for value in near]
    assert all(score > 0 for score in scores) and scores == sorted(scores, reverse=True)


def test_the_search_page_suggests_only_the_close_parameter(client):
    html = client.get("/cases/", {"pubished_after": "2024-01-01"}).content.decode()
    assert text_of(element(element(html, "div", class_="note notice"), "li")).endswith(
        "is not a parameter of this page, so it was not used. Did you mean published_after?"
    )  # was "published_after or published_before"


def test_an_mcp_argument_spelt_near_one_of_the_tools_is_a_slip_of_it(mcp):
    assert mcp.error("list_incidents", topics="training-hang").startswith(
        "Unknown argument 'topics' (did you mean 'topic'?); list_incidents takes: "
    )


def test_a_name_meant_but_not_spelt_alike_is_named_by_what_it_stands_for():
    # `sources` is four slips from `source_urls`: difflib's letters in common found it, the
    # one rule does not, so it is a name that stands for another (`NAMES_MEANT`).
    accepted = ["kind", "title", "text", "source_urls", "case_id"]
    assert nearest_strings("sources", accepted) == []
    assert names_meant("sources", accepted) == ["source_urls"]
