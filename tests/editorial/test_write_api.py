"""The write API: token auth, roles, import's validation, If-Match / ETag concurrency."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.history import case_history
from incidents.models import Case
from tests.conftest import load_fixture

from .conftest import api, etag_of, write_case

pytestmark = pytest.mark.django_db

DETAIL = "api:case-detail"


def new_document(**overrides) -> dict:
    document = load_fixture("IL-0428")
    document.pop("id")
    document.update(status="draft", title="A case written through the API by an editor", related=[])
    document["sources"] = [{"title": "Account", "url": "https://example.org/api-written"}]
    document.update(overrides)
    return document


# --- permissions on every write path ---

WRITES = [
    ("post", lambda: reverse("api:case-list"), lambda: new_document()),
    ("put", lambda: reverse(DETAIL, args=["IL-0428"]), lambda: load_fixture("IL-0428")),
    ("patch", lambda: reverse(DETAIL, args=["IL-0428"]), lambda: {"lessons": ["x"]}),
    (
        "post",
        lambda: reverse("api:case-status", args=["IL-0428"]),
        lambda: {"status": "retracted", "reason": "r"},
    ),
    ("post", lambda: reverse("api:case-merge", args=["IL-0429"]), lambda: {"into": "IL-0428"}),
]


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_anonymous_writes_get_401(method, url, body):
    response = getattr(api(), method)(url(), body(), format="json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert Case.objects.get(id="IL-0428").status == "published"


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_a_user_without_the_editor_role_gets_403(method, url, body, outsider):
    response = getattr(api(outsider), method)(url(), body(), format="json", HTTP_IF_MATCH="*")
    assert response.status_code == 403
    assert len(case_history("IL-0428")) == 1


def test_a_bad_token_is_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.patch(reverse(DETAIL, args=["IL-0428"]), {}, format="json").status_code == 401


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("api:case-status", {"status": "retracted", "reason": "withdrawn"}),
        ("api:case-merge", {"into": "IL-0428"}),
    ],
)
def test_an_editor_cannot_retract_or_merge(path, body, editor):
    client = api(editor)
    case_id = "IL-0429"
    response = client.post(
        reverse(path, args=[case_id]), body, format="json", HTTP_IF_MATCH=etag_of(client, case_id)
    )
    assert response.status_code == 403
    assert Case.objects.get(id=case_id).status == "published"


# --- create, update, patch ---


def test_an_editor_creates_a_draft(editor):
    response = api(editor).post(reverse("api:case-list"), new_document(), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    case = Case.objects.get(id=body["id"])
    assert (case.status, case.title) == ("draft", "A case written through the API by an editor")
    assert response["Location"].endswith(reverse(DETAIL, args=[case.id]))
    assert response["ETag"]
    assert case_history(case.id)[0].user == "edna"


def test_an_editor_may_not_create_a_published_case_but_a_reviewer_may(editor, reviewer):
    assert (
        api(editor)
        .post(reverse("api:case-list"), new_document(status="published"), format="json")
        .status_code
        == 403
    )
    assert (
        api(reviewer)
        .post(reverse("api:case-list"), new_document(status="published"), format="json")
        .status_code
        == 201
    )


def test_a_document_failing_import_validation_is_a_400_naming_each_path(editor):
    document = new_document(topics=["no-such-topic"])
    document["symptoms"]["tags"] = ["No such tag"]
    response = api(editor).post(reverse("api:case-list"), document, format="json")
    assert response.status_code == 400
    errors = {e["parameter"]: e["detail"] for e in response.json()["errors"]}
    assert set(errors) == {"$.topics[0]", "$.symptoms.tags[0]"}
    assert "unknown topic 'no-such-topic'" in errors["$.topics[0]"]
    assert not Case.objects.filter(title="A case written through the API by an editor").exists()
    document = new_document(title="short")
    response = api(editor).post(reverse("api:case-list"), document, format="json")
    assert response.status_code == 400
    assert [e["parameter"] for e in response.json()["errors"]] == ["$.title"]


def test_put_replaces_the_document(editor):
    client = api(editor)
    document = load_fixture("IL-0428")
    document["lessons"] = ["Only this lesson now."]
    response = client.put(
        reverse(DETAIL, args=["IL-0428"]), document, format="json", HTTP_IF_MATCH=etag_of(client, "IL-0428")
    )
    assert response.status_code == 200, response.json()
    assert Case.objects.get(id="IL-0428").lessons == ["Only this lesson now."]
    # An ETag for the next write, not GET's (test_if_match_follows_the_case_alone.py).
    assert response["ETag"] != etag_of(client, "IL-0428")
    [latest, *_] = case_history("IL-0428")
    assert [(c.field, c.new) for c in latest.changes] == [("lessons", ["Only this lesson now."])]


def test_patch_merges_into_the_document(editor):
    client = api(editor)
    response = client.patch(
        reverse(DETAIL, args=["IL-0428"]),
        {"facts": {"severity": "low"}},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
    )
    assert response.status_code == 200, response.json()
    assert response.json()["facts"]["severity"] == "low"
    assert response.json()["facts"]["scope"] == load_fixture("IL-0428")["facts"]["scope"]
    [latest, *_] = case_history("IL-0428")
    assert [c.field for c in latest.changes] == ["facts.severity"]


def test_status_cannot_change_through_put_or_patch(editor):
    client = api(editor)
    response = client.patch(
        reverse(DETAIL, args=["IL-0428"]),
        {"status": "draft"},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
    )
    assert response.status_code == 409
    assert "/api/cases/IL-0428/status" in response.json()["detail"]


# --- optimistic concurrency ---


def test_a_stale_write_gets_412_and_nothing_is_overwritten(editor, reviewer):
    first, second = api(editor), api(reviewer)
    stale = etag_of(first, "IL-0428")
    ok = second.patch(
        reverse(DETAIL, args=["IL-0428"]),
        {"lessons": ["Second editor's lesson."]},
        format="json",
        HTTP_IF_MATCH=stale,
    )
    assert ok.status_code == 200
    late = first.patch(
        reverse(DETAIL, args=["IL-0428"]),
        {"lessons": ["First editor's lesson."]},
        format="json",
        HTTP_IF_MATCH=stale,
    )
    assert late.status_code == 412
    assert late["Content-Type"].startswith("application/problem+json")
    assert Case.objects.get(id="IL-0428").lessons == ["Second editor's lesson."]
    assert case_history("IL-0428")[0].user == "rita"


def test_a_write_without_if_match_is_428(editor):
    response = api(editor).patch(reverse(DETAIL, args=["IL-0428"]), {"lessons": []}, format="json")
    assert response.status_code == 428
    assert Case.objects.get(id="IL-0428").lessons == load_fixture("IL-0428")["lessons"]


# --- status and merge ---


def test_a_reviewer_retracts_with_a_reason_through_the_api(reviewer):
    response = write_case(
        reviewer, "post", "api:case-status", "IL-0428", {"status": "retracted", "reason": "Source withdrawn."}
    )
    assert response.status_code == 200, response.json()
    assert (response.json()["status"], response.json()["retraction_reason"]) == (
        "retracted",
        "Source withdrawn.",
    )


def test_a_refused_transition_is_409(reviewer):
    response = write_case(reviewer, "post", "api:case-status", "IL-0428", {"status": "draft"})
    assert response.status_code == 409
    assert "a case that is published cannot become draft" in response.json()["detail"]


def test_a_reviewer_merges_through_the_api(reviewer):
    client = api(reviewer)
    response = write_case(
        reviewer, "post", "api:case-merge", "IL-0429", {"into": "IL-0428", "reason": "same outage"}
    )
    assert response.status_code == 200, response.json()
    assert response.json()["id"] == "IL-0428"
    assert Case.objects.get(id="IL-0429").merged_into_id == "IL-0428"
    again = client.patch(reverse(DETAIL, args=["IL-0429"]), {"lessons": []}, format="json", HTTP_IF_MATCH="*")
    assert again.status_code == 409


def test_a_non_object_body_is_a_400(editor):
    response = api(editor).post(reverse("api:case-list"), json.dumps([1, 2]), content_type="application/json")
    assert response.status_code == 400
