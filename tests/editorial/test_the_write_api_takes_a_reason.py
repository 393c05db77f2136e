"""Every write through the API may say why (`X-Change-Reason`, percent-encoded UTF-8), as
the admin's "Reason for this change" does: the reason is the history entry's, and the
history API returns it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents.history import case_history
from incidents.models import Case
from tests.api.conftest import openapi_schema
from tests.conftest import load_fixture

from .conftest import api, etag_of
from .test_write_api import new_document

pytestmark = pytest.mark.django_db

DETAIL = "api:case-detail"
TWO_LINES = "Date corrected per the postmortem\nsecond source read – café"
TWO_LINES_SENT = "Date%20corrected%20per%20the%20postmortem%0Asecond%20source%20read%20%E2%80%93%20caf%C3%A9"


def patch_lessons(client, lessons: list[str], **headers):
    """PATCH IL-0428's lessons with its current ETag and `headers`."""
    return client.patch(
        reverse(DETAIL, args=["IL-0428"]),
        {"lessons": lessons},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
        **headers,
    )


def latest_reason_in_the_api(client, case_id: str) -> str:
    response = client.get(reverse("api:case-history", args=[case_id]))
    assert response.status_code == 200
    return response.json()["results"][0]["reason"]


def test_a_patch_with_a_reason_records_it_and_the_history_api_returns_it(editor):
    client = api(editor)
    response = patch_lessons(client, ["Say why."], HTTP_X_CHANGE_REASON=TWO_LINES_SENT)
    assert response.status_code == 200, response.json()
    latest = case_history("IL-0428")[0]
    assert (latest.user, latest.reason) == ("edna", TWO_LINES)
    assert [c.field for c in latest.changes] == ["lessons"]
    assert latest_reason_in_the_api(client, "IL-0428") == TWO_LINES


def test_a_put_and_a_create_take_a_reason(editor):
    client = api(editor)
    document = load_fixture("IL-0428") | {"lessons": ["Replaced."]}
    response = client.put(
        reverse(DETAIL, args=["IL-0428"]),
        document,
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
        HTTP_X_CHANGE_REASON="replaced%20from%20the%20source",
    )
    assert response.status_code == 200, response.json()
    assert case_history("IL-0428")[0].reason == "replaced from the source"
    created = client.post(
        reverse("api:case-list"), new_document(), format="json", HTTP_X_CHANGE_REASON="new%20report"
    )
    assert created.status_code == 201, created.json()
    assert case_history(created.json()["id"])[0].reason == "new report"


def test_without_a_reason_the_entry_names_the_method(editor):
    client = api(editor)
    response = patch_lessons(client, ["No reason."])
    assert response.status_code == 200
    assert case_history("IL-0428")[0].reason == "PATCH through the API"


def test_status_and_merge_take_the_reason_from_the_header_too(reviewer):
    client = api(reviewer)
    retracted = client.post(
        reverse("api:case-status", args=["IL-0428"]),
        {"status": "retracted"},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
        HTTP_X_CHANGE_REASON="source%20withdrawn",
    )
    assert retracted.status_code == 200, retracted.json()
    assert retracted.json()["retraction_reason"] == "source withdrawn"
    assert case_history("IL-0428")[0].reason == "source withdrawn"
    merged = client.post(
        reverse("api:case-merge", args=["IL-0430"]),
        {"into": "IL-0429", "reason": "same outage"},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0430"),
        HTTP_X_CHANGE_REASON="same%20outage",
    )
    assert merged.status_code == 200, merged.json()
    assert case_history("IL-0430")[0].reason == "merged into IL-0429: same outage"


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ("%FF%FE", "not percent-encoded UTF-8 text"),
        ("x" * 2001, "at most 2000 characters, got 2001"),
        # PostgreSQL's text holds no NUL: the write failed there with a 500.
        ("a%00b", "holds a NUL character (U+0000), which is not stored"),
        # UTF-8 sent unescaped, as the server reads it (Latin-1): stored as mojibake before.
        ("caf\u00c3\u00a9", "not percent-encoded UTF-8 text"),
    ],
)
def test_a_reason_that_cannot_be_stored_is_a_400_naming_the_header(editor, header, detail):
    client = api(editor)
    response = patch_lessons(client, ["Refused."], HTTP_X_CHANGE_REASON=header)
    assert response.status_code == 400
    assert [(e["parameter"], e["detail"]) for e in response.json()["errors"]] == [("X-Change-Reason", detail)]
    assert len(case_history("IL-0428")) == 1


@pytest.mark.parametrize(
    ("body_reason", "header", "error"),
    [
        ("one", "another", ("X-Change-Reason", "gives another reason than the body's `reason`: send one")),
        # PostgreSQL's text holds no NUL: the retraction failed there with a 500.
        ("withdrawn\u0000", "", ("reason", "holds a NUL character (U+0000), which is not stored")),
    ],
)
def test_a_status_change_whose_reason_cannot_be_stored_is_a_400(reviewer, body_reason, header, error):
    client = api(reviewer)
    response = client.post(
        reverse("api:case-status", args=["IL-0428"]),
        {"status": "retracted", "reason": body_reason},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
        HTTP_X_CHANGE_REASON=header,
    )
    assert response.status_code == 400
    assert [(e["parameter"], e["detail"]) for e in response.json()["errors"]] == [error]
    assert Case.objects.get(id="IL-0428").status == "published"


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/api/cases/", "post"),
        ("/api/cases/{case_id}", "put"),
        ("/api/cases/{case_id}", "patch"),
        ("/api/cases/{case_id}/status", "post"),
        ("/api/cases/{case_id}/merge", "post"),
    ],
)
def test_the_schema_names_the_header_on_every_write(path, method):
    parameters = openapi_schema()["paths"][path][method]["parameters"]
    (header,) = [p for p in parameters if p["name"] == "X-Change-Reason"]
    assert (header["in"], header.get("required", False)) == ("header", False)
    assert "history" in header["description"]
