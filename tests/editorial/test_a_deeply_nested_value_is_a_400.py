"""A case document holding a value nested hundreds of levels deep (`affected[].versions`
here) is a 400 naming the field, from PUT, PATCH and POST alike, and nothing is written:
import's validation walked it recursively (jsonschema) and raised RecursionError, a 500."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from incidents.documents import case_document
from incidents.history import case_history
from incidents.models import Case
from tests.conftest import load_fixture

from .conftest import api, etag_of

pytestmark = pytest.mark.django_db

DETAIL = "api:case-detail"
TOO_DEEP = {
    "parameter": "$.affected",
    "detail": "nested too deeply: lists and objects more than 32 levels deep",
}


def nested(levels: int) -> str:
    """`levels` lists one inside the next, as JSON text."""
    return "[" * levels + "]" * levels


def deep_affected(levels: int = 400) -> str:
    return f'[{{"component": "NCCL", "versions": [{nested(levels)}, {nested(levels)}]}}]'


def document_text(levels: int = 400) -> str:
    document = load_fixture("IL-0428")
    document["affected"] = "AFFECTED"
    return json.dumps(document).replace('"AFFECTED"', deep_affected(levels))


def stored() -> dict:
    return case_document(Case.objects.with_document().get(id="IL-0428"))


def send(editor, method: str, body: str, content_type: str = "application/json"):
    client = api(editor)
    before = stored()
    response = getattr(client, method)(
        reverse(DETAIL, args=["IL-0428"]),
        body,
        content_type=content_type,
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
    )
    assert stored() == before
    return response


def assert_refused(response) -> None:
    assert response.status_code == 400, response.content[:500]
    assert response.json()["errors"] == [TOO_DEEP]
    assert len(case_history("IL-0428")) == 1


def test_put_of_a_document_nested_too_deeply_is_a_400(editor):
    assert_refused(send(editor, "put", document_text()))


@pytest.mark.parametrize("content_type", ["application/json", "application/merge-patch+json"])
def test_patch_nested_too_deeply_is_a_400(editor, content_type):
    assert_refused(send(editor, "patch", f'{{"affected": {deep_affected()}}}', content_type))


def test_post_of_a_new_case_nested_too_deeply_is_a_400(editor):
    document = load_fixture("IL-0428")
    del document["id"]
    document.update(status="draft", title="A new case whose affected versions nest too deeply")
    document["affected"] = "AFFECTED"
    body = json.dumps(document).replace('"AFFECTED"', deep_affected())
    response = api(editor).post(reverse("api:case-list"), body, content_type="application/json")
    assert response.status_code == 400, response.content[:500]
    assert response.json()["errors"] == [TOO_DEEP]
    assert not Case.objects.filter(title=document["title"]).exists()


def test_32_levels_are_checked_as_any_value(editor):
    # At the limit the value is read and validated: the schema's own complaint, no depth's.
    response = send(editor, "patch", f'{{"affected": [{{"component": "NCCL", "versions": {nested(30)}}}]}}')
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["parameter"] == "$.affected[0].versions[0]"
    assert "is not of type 'string'" in error["detail"]
