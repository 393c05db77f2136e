"""A case merged into another keeps its own history, readable at its own address: the
walkthrough merged IL-0433 into IL-0431 and found `/cases/IL-0433/history` and
`GET /api/cases/IL-0433/history` redirecting to IL-0431's history, which holds only the
merge row, so IL-0433's import, its edits and who merged it were readable nowhere. Its case
page and API document still redirect to the kept case (the documented behaviour)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import Case
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def merged(editor, reviewer) -> str:
    """IL-0429 edited once, then merged into IL-0428 by rita."""
    document = load_fixture("IL-0429")
    document["facts"]["severity"] = "low"
    services.save_case_document(document, user=editor, reason="severity as the postmortem says")
    services.merge_cases("IL-0429", "IL-0428", user=reviewer, reason="same outage")
    return "IL-0429"


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


def test_the_merged_case_s_page_still_redirects_to_the_kept_case(client, merged):
    response = client.get(reverse("incidents:case-detail", args=[merged]))
    assert (response.status_code, response["Location"]) == (301, "/cases/IL-0428")
    assert client.get(reverse("api:case-detail", args=[merged])).status_code == 301


def test_the_merged_case_s_history_page_is_its_own_and_says_where_it_went(client, merged):
    response = client.get("/cases/IL-0429/history")
    assert response.status_code == 200
    page = response.content.decode()
    merged_on = Case.objects.get(id="IL-0429").modified
    versions = re.findall(r'<p class="meta">(.*?)</p>', page)
    assert [text_of(v) for v in versions] == [
        "Changed by rita · merged into IL-0428: same outage · status Merged",
        "Changed by edna · severity as the postmortem says · status Published",
        "Created by an import · import · status Published",
    ]
    [notice] = re.findall(r'<div class="notice merged" role="note">(.*?)</div>', page, re.S)
    assert text_of(notice) == (
        f"IL-0429 was merged into IL-0428 on {merged_on:%-d %B %Y, %H:%M} UTC. Its id leads to "
        "IL-0428 now; this is its own history, up to and with the merge. IL-0428's changes "
        "since are in the history of IL-0428."
    )
    assert '<a href="/cases/IL-0428">IL-0428</a>' in notice
    assert '<a href="/cases/IL-0428/history">the history of IL-0428</a>' in notice
    assert response["Link"] == '</api/cases/IL-0429/history>; rel="alternate"; type="application/json"'


def test_the_kept_case_s_history_links_the_merged_case_s(client, merged):
    page = client.get("/cases/IL-0428/history").content.decode()
    [merged_from] = re.findall(r'<p class="merged-from">(.*?)</p>', page)
    assert merged_from == (
        'Merged into this case: <a href="/cases/IL-0429/history">the history of IL-0429</a>.'
    )
    assert 'class="notice merged"' not in page


def test_another_spelling_of_a_merged_id_redirects_to_its_own_history(client, merged):
    for spelling in ("il-0429", "IL0429", "429"):
        response = client.get(f"/cases/{spelling}/history")
        assert (response.status_code, response["Location"]) == (301, "/cases/IL-0429/history")
        response = client.get(f"/api/cases/{spelling}/history")
        assert (response.status_code, response["Location"]) == (301, "/api/cases/IL-0429/history")


def test_the_api_gives_the_merged_case_s_own_history_and_its_kept_case(client, merged):
    response = client.get("/api/cases/IL-0429/history")
    assert response.status_code == 200
    body = response.json()
    merged_on = Case.objects.get(id="IL-0429").modified.isoformat().replace("+00:00", "Z")
    assert {key: body[key] for key in ("case", "status", "merged_into", "merged_on", "merged_from")} == {
        "case": "IL-0429",
        "status": "merged",
        "merged_into": {
            "id": "IL-0428",
            "url": "http://testserver/api/cases/IL-0428",
            "history_url": "http://testserver/api/cases/IL-0428/history",
        },
        "merged_on": merged_on,
        "merged_from": [],
    }
    assert [(r["number"], r["user"], r["reason"], r["status"]) for r in body["results"]] == [
        (3, "rita", "merged into IL-0428: same outage", "merged"),
        (2, "edna", "severity as the postmortem says", "published"),
        (1, None, "import", "published"),
    ]
    assert body["results"][0]["changes"] == [
        {"field": "status", "old": "published", "new": "merged"},
        {"field": "merged_into", "old": None, "new": "IL-0428"},
    ]


def test_the_api_history_of_the_kept_case_names_the_merged_one(client, merged):
    body = client.get("/api/cases/IL-0428/history").json()
    assert (body["status"], body["merged_into"], body["merged_on"]) == ("published", None, None)
    assert body["merged_from"] == [
        {
            "id": "IL-0429",
            "url": "http://testserver/api/cases/IL-0429",
            "history_url": "http://testserver/api/cases/IL-0429/history",
        }
    ]
    assert [r["reason"] for r in body["results"]] == ["IL-0429 merged into this case: same outage", "import"]


def test_a_chain_of_merges_keeps_each_history_and_its_first_merge_date(client, merged, reviewer):
    first_merge = client.get("/api/cases/IL-0429/history").json()["merged_on"]
    services.merge_cases("IL-0428", "IL-0430", user=reviewer, reason="one incident")
    body = client.get("/api/cases/IL-0429/history").json()
    assert (body["merged_into"]["id"], body["merged_on"]) == ("IL-0430", first_merge)
    assert body["results"][0]["reason"] == "now redirects to IL-0430: IL-0428 merged into it"
    assert [m["id"] for m in client.get("/api/cases/IL-0430/history").json()["merged_from"]] == [
        "IL-0428",
        "IL-0429",
    ]
