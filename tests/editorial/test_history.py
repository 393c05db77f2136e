"""History: who changed what and when, on the case page, its history page and the API."""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents import services
from incidents.history import case_history
from incidents.models import Case
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def edited(editor) -> str:
    document = load_fixture("IL-0428")
    document["facts"]["severity"] = "low"
    document["sources"].append({"title": "A second account", "url": "https://example.org/second"})
    services.save_case_document(document, user=editor, reason="second source")
    return "IL-0428"


def test_an_import_is_the_first_entry(edited):
    *_, first = case_history(edited)
    assert (first.number, first.user, first.created, first.reason) == (1, None, True, "import")
    assert ("title", None, load_fixture("IL-0428")["title"]) in [
        (c.field, c.old, c.new) for c in first.changes
    ]


def test_an_edit_records_who_why_and_each_changed_field(edited):
    latest = case_history(edited)[0]
    assert (latest.number, latest.user, latest.reason, latest.created) == (2, "edna", "second source", False)
    fixture = load_fixture("IL-0428")
    assert [(c.field, c.old, c.new) for c in latest.changes] == [
        ("facts.severity", fixture["facts"]["severity"], "low"),
        (
            "sources",
            fixture["sources"],
            [*fixture["sources"], {"title": "A second account", "url": "https://example.org/second"}],
        ),
    ]


def test_saving_the_same_document_again_records_nothing(editor, edited):
    document = dict(load_fixture("IL-0428"))
    document["facts"]["severity"] = "low"
    document["sources"].append({"title": "A second account", "url": "https://example.org/second"})
    assert services.save_case_document(document, user=editor).changed is False
    assert len(case_history(edited)) == 2


def test_the_case_page_shows_last_updated_and_links_its_history(client, edited):
    page = client.get(reverse("incidents:case-detail", args=[edited])).content.decode()
    modified = Case.objects.get(id=edited).modified
    assert f'Last updated <time datetime="{modified.isoformat()}' in page
    assert f'href="{reverse("incidents:case-history", args=[edited])}"' in page


def test_the_history_page_lists_changes_newest_first(client, edited):
    response = client.get(reverse("incidents:case-history", args=[edited]))
    assert response.status_code == 200
    page = response.content.decode()
    assert page.index("Version 2") < page.index("Version 1")
    assert "Changed by edna · second source" in page
    assert "<code>facts.severity</code>" in page
    assert (
        response["Link"]
        == f'<{reverse("api:case-history", args=[edited])}>; rel="alternate"; type="application/json"'
    )


def test_the_api_history_has_the_same_entries(client, edited):
    body = client.get(reverse("api:case-history", args=[edited])).json()
    assert body["case"] == edited
    assert [(r["number"], r["user"], r["reason"]) for r in body["results"]] == [
        (2, "edna", "second source"),
        (1, None, "import"),
    ]
    assert body["results"][0]["changes"][0] == {
        "field": "facts.severity",
        "old": load_fixture("IL-0428")["facts"]["severity"],
        "new": "low",
    }


def test_history_hides_drafts(client):
    Case.objects.filter(id="IL-0430").update(status=Case.Status.DRAFT)
    assert client.get(reverse("incidents:case-history", args=["IL-0430"])).status_code == 404
    assert client.get(reverse("api:case-history", args=["IL-0430"])).status_code == 404


def test_the_history_page_costs_a_fixed_number_of_queries(client, edited, django_assert_num_queries):
    # Store version (2) for the page's validators, the case with its kept case, its history
    # rows with users, the ids merged into it (`selectors.history_of`).
    with django_assert_num_queries(5):
        assert client.get(reverse("incidents:case-history", args=[edited])).status_code == 200


def test_the_api_history_costs_a_fixed_number_of_queries(client, edited, settings, django_assert_num_queries):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}
    # The case row with its kept case, its history rows with their users, the ids merged into it.
    with django_assert_num_queries(3):
        assert client.get(reverse("api:case-history", args=[edited])).status_code == 200


def test_the_lookalikes_endpoint_costs_a_fixed_number_of_queries(client, settings, django_assert_num_queries):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}
    # URL match, the published accounts (2: their root causes and their stored profile rows,
    # which hold the word counts; no term links, which a duplicate check does not compare);
    # nothing matched, so no titles are read. With the store cache on, the accounts are read
    # once per store generation (tests/caching/test_lookalikes_read_the_accounts_once.py).
    with django_assert_num_queries(3):
        client.get(reverse("api:proposal-lookalikes"), {"url": "https://example.org/x", "text": "NCCL hang"})
