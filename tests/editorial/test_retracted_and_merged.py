"""Retracted and merged cases across every front door: HTML, API, feeds, search, stats, MCP."""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents import selectors, services
from incidents.models import Case
from incidents.search import search_cases, similar_cases
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

REASON = "The postmortem was withdrawn by its authors."


@pytest.fixture
def retracted(reviewer) -> str:
    services.change_status("IL-0430", Case.Status.RETRACTED, user=reviewer, reason=REASON)
    return "IL-0430"


@pytest.fixture
def merged(reviewer) -> tuple[str, str]:
    services.merge_cases("IL-0431", "IL-0428", user=reviewer, reason="same incident")
    return "IL-0431", "IL-0428"


def title_query(case_id: str) -> str:
    return '"' + Case.objects.get(id=case_id).title + '"'


def listed_ids(client, url: str) -> list[str]:
    return [hit["id"] for hit in client.get(url).json()["results"]]


# --- retracted ---


def test_a_retracted_case_page_shows_a_notice_with_the_reason(client, retracted):
    response = client.get(reverse("incidents:case-detail", args=[retracted]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "This case was retracted." in page and REASON in page


def test_a_retracted_case_still_resolves_in_the_api_with_its_reason(client, retracted):
    body = client.get(reverse("api:case-detail", args=[retracted])).json()
    assert (body["status"], body["retraction_reason"]) == ("retracted", REASON)


def test_a_retracted_case_leaves_lists_search_feeds_similar_and_stats(client, retracted):
    assert retracted not in [h.case.id for h in search_cases(query=title_query(retracted)).hits]
    assert retracted not in listed_ids(client, reverse("api:case-list") + "?page_size=100")
    assert retracted not in listed_ids(client, reverse("api:case-list") + "?q=" + title_query(retracted))
    assert f"/cases/{retracted}<" not in client.get(reverse("incidents:feed-all")).content.decode()
    assert f"{retracted}" not in client.get(reverse("incidents:case-list")).content.decode()
    for other in Case.objects.published():
        assert retracted not in [s.case.id for s in similar_cases(other, limit=10)]
    assert selectors.case_stats().total == Case.objects.published().count()
    assert f'"id": "{retracted}"' not in client.get("/api/export").getvalue().decode()


def test_a_retraction_is_a_change_in_the_feed(client, retracted):
    [first, *_] = client.get(reverse("api:changes")).json()["results"]
    assert (first["id"], first["status"], first["merged_into"]) == (retracted, "retracted", None)


# The in-memory MCP server reads from another thread: it sees only committed data.
def test_mcp_leaves_a_retracted_case_out_of_search_and_says_why_on_get(transactional_cases, retracted):
    mcp = InMemoryMcp()
    found = mcp.ok("search_incidents", query=Case.objects.get(id=retracted).title, limit=25)
    assert retracted not in [hit["id"] for hit in found["hits"]]
    document = mcp.ok("get_incident", id=retracted)
    assert (document["status"], document["notice"]) == ("retracted", f"Retracted: {REASON}")


# --- merged ---


def test_a_merged_id_redirects_on_the_site(client, merged):
    gone, kept = merged
    response = client.get(reverse("incidents:case-detail", args=[gone]))
    assert (response.status_code, response["Location"]) == (
        301,
        reverse("incidents:case-detail", args=[kept]),
    )
    lower = client.get(reverse("incidents:case-detail", args=[gone.lower()]))
    assert (lower.status_code, lower["Location"]) == (301, reverse("incidents:case-detail", args=[kept]))


def test_a_merged_id_redirects_in_the_api_with_a_body_naming_the_kept_case(client, merged):
    gone, kept = merged
    response = client.get(reverse("api:case-detail", args=[gone]))
    assert response.status_code == 301
    assert response["Location"] == reverse("api:case-detail", args=[kept])
    assert response.json() == {
        "id": gone,
        "merged_into": kept,
        "url": "http://testserver" + response["Location"],
    }
    similar = client.get(reverse("api:case-similar", args=[gone]))
    assert (similar.status_code, similar["Location"]) == (301, reverse("api:case-similar", args=[kept]))


def test_a_merged_id_leaves_search_and_lists(client, merged):
    gone, _ = merged
    assert gone not in [h.case.id for h in search_cases(query=title_query(gone)).hits]
    assert gone not in listed_ids(client, reverse("api:case-list") + "?page_size=100")
    assert f"/cases/{gone}<" not in client.get(reverse("incidents:feed-all")).content.decode()


def test_a_merge_shows_in_the_change_feed_for_both_cases(client, merged):
    gone, kept = merged
    rows = {row["id"]: row for row in client.get(reverse("api:changes")).json()["results"]}
    assert (rows[gone]["status"], rows[gone]["merged_into"]) == ("merged", kept)
    assert (rows[kept]["status"], rows[kept]["merged_into"]) == ("published", None)


def test_mcp_get_incident_returns_the_kept_case_and_says_so(transactional_cases, merged):
    gone, kept = merged
    document = InMemoryMcp().ok("get_incident", id=gone, fields=["title"])
    assert document["id"] == kept
    assert document["notice"] == f"{gone} was merged into {kept} as a duplicate; this is {kept}."
    assert document["title"] == Case.objects.get(id=kept).title


def test_a_draft_or_a_case_in_review_is_not_found_anywhere(transactional_cases, client):
    Case.objects.filter(id="IL-0432").update(status=Case.Status.IN_REVIEW)
    assert client.get(reverse("incidents:case-detail", args=["IL-0432"])).status_code == 404
    assert client.get(reverse("api:case-detail", args=["IL-0432"])).status_code == 404
    assert "IL-0432" not in [row["id"] for row in client.get(reverse("api:changes")).json()["results"]]
    assert InMemoryMcp().call("get_incident", id="IL-0432").is_error
