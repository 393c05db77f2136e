"""search_incidents and list_incidents filter by error code (issue 15) through the read
layer's one parser, `parse_filters`: the same values, spellings and answers as
`/api/cases/?error_code=` and the case list page."""

from __future__ import annotations

import pytest

from incidents.models import Case

pytestmark = pytest.mark.django_db


def xid79_ids() -> list[str]:
    cases = Case.objects.published().filter(terms__facet="error_code", terms__slug="xid-79")
    return list(cases.order_by("-published", "id").values_list("id", flat=True))


def test_list_incidents_by_error_code_agrees_with_the_api(client, mcp):
    expected = xid79_ids()
    assert len(expected) == 2  # the fixture cases that showed Xid 79
    api = client.get("/api/cases/", {"error_code": "xid-79", "sort": "newest"}).json()
    assert [c["id"] for c in api["results"]] == expected
    for spelling in ("xid-79", "Xid 79", "XID79"):
        listed = mcp.ok("list_incidents", error_code=spelling)
        assert [c["id"] for c in listed["incidents"]] == expected, spelling
        assert listed["total"] == 2


def test_search_incidents_by_error_code_keeps_only_those_cases(mcp):
    result = mcp.ok("search_incidents", query="GPU", error_code=["xid-79"], limit=25)
    assert sorted(h["id"] for h in result["hits"]) == sorted(xid79_ids())


def test_exclusion_is_the_exclude_item_the_other_facets_use(client, mcp):
    total = mcp.ok("list_incidents")["total"]
    rest = mcp.ok("list_incidents", exclude=["error_code:Xid 79"], limit=50)
    assert rest["total"] == total - 2
    api = client.get("/api/cases/", {"exclude_error_code": "xid-79"}).json()
    assert api["count"] == rest["total"]
    assert not set(xid79_ids()) & {c["id"] for c in rest["incidents"]}


def test_an_unknown_code_names_the_nearest_and_where_all_are(mcp):
    message = mcp.error("list_incidents", error_code="Xid 97")
    assert message.startswith("Unknown error_code 'Xid 97'. Nearest: ")
    assert "xid-79 (Xid 79)" in message
    assert message.endswith(
        " All 47 values: call vocab with facet='error_code'; or give the line to explain_error."
    )
