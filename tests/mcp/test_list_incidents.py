"""list_incidents: browsing published cases with filters, sort, total and cursors."""

from __future__ import annotations

from incidents.models import Case, Facet, Term
from tests.api.fixture_facts import published_documents


def published_newest_first() -> list[str]:
    return list(Case.objects.published().newest_first().values_list("id", flat=True))


def test_newest_first_with_the_total(mcp):
    result = mcp.ok("list_incidents", limit=5)
    assert result["total"] == Case.objects.published().count() == len(published_documents())
    assert [c["id"] for c in result["incidents"]] == published_newest_first()[:5]
    assert result["next_cursor"] is not None
    assert set(result["incidents"][0]) == {
        "id",
        "title",
        "organization",
        "published",
        "topics",
        "symptom_tags",
        "root_cause_category",
        "url",
        "html_url",
    }


def test_oldest_first(mcp):
    result = mcp.ok("list_incidents", sort="oldest", limit=2)
    oldest = Case.objects.published().order_by("published", "id")[:2]
    assert [c["id"] for c in result["incidents"]] == [case.id for case in oldest]
    assert result["incidents"][0]["published"] <= "2018-01-18"  # IL-0458's date


def test_filters_combine_and_accept_names_in_any_case(mcp):
    result = mcp.ok("list_incidents", organization="bigscience", root_cause="Hardware fault")
    expected = (
        Case.objects.published()
        .filter(organization="BigScience", root_cause_category__slug="hardware-fault")
        .newest_first()
    )
    assert [c["id"] for c in result["incidents"]] == [case.id for case in expected]
    assert {"IL-0431", "IL-0432"} <= {c["id"] for c in result["incidents"]}
    assert all(c["organization"] == "BigScience" for c in result["incidents"])
    assert result["total"] == len(expected) and result["next_cursor"] is None
    # IL-0452 was published on 2023-12-30 (the post that diagnosed the cause, after the fact-check).
    by_topic = mcp.ok("list_incidents", topic="Storage", year=2023)
    assert "IL-0452" in [c["id"] for c in by_topic["incidents"]]
    assert all(
        "checkpoint-storage" in c["topics"] and c["published"].startswith("2023")
        for c in by_topic["incidents"]
    )


def test_pages_follow_the_cursor_to_the_end(mcp):
    first = mcp.ok("list_incidents", limit=20)
    second = mcp.ok("list_incidents", limit=20, cursor=first["next_cursor"])
    ids = [c["id"] for c in first["incidents"] + second["incidents"]]
    assert ids == published_newest_first()[:40]
    # The cursor is bound to the sort and filters, not to the page size.
    with_other_sort = mcp.call("list_incidents", sort="oldest", cursor=first["next_cursor"])
    assert with_other_sort.is_error


def test_an_unknown_organization_names_the_nearest(mcp):
    # One organization is spelt like it: Meta AI, FAIR and Facebook are aliases of the one
    # organization term Meta (issue 13).
    organizations = Term.objects.filter(facet=Facet.ORGANIZATION).count()
    assert mcp.error("list_incidents", organization="metta") == (
        "Unknown organization 'metta'. Nearest: meta (Meta). "
        f"All {organizations} values: call vocab with facet='organization'."
    )


def test_an_unknown_component_names_the_nearest(mcp):
    message = mcp.error("list_incidents", component="infiniband hca")
    assert message.startswith("Unknown component 'infiniband hca'. Nearest: infiniband (InfiniBand)")


def test_bad_sort_limit_and_argument_names_are_refused(mcp):
    assert mcp.error("list_incidents", sort="best") == (
        'Invalid arguments: sort must be one of newest, oldest (got "best").'
    )
    assert mcp.error("list_incidents", limit=51) == (
        "Invalid arguments: limit must be between 1 and 50 (got 51)."
    )
    assert mcp.error("list_incidents", symptoms="Training hang") == (
        "Unknown argument 'symptoms' (did you mean 'symptom'?); list_incidents takes: topic, "
        "symptom, root_cause, component, error_code, organization, accelerator, year, exclude, "
        "published_after, published_before, workload, scale, min_accelerators, max_accelerators, "
        "min_nodes, max_nodes, sort, limit, cursor, facets."
    )
