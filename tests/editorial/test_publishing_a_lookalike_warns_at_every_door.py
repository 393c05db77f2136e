"""A case that looks like a stored one is written and published with a warning at every door.

Import, an admin save and a proposal's Accept warned "Possible duplicate: ...", but the write
API created and published a case citing another case's source URL with no word of it, and so
did the admin list's Publish action (a new user's walkthrough, W28). The write API's answers
now carry `warnings` (on a create, a replace or patch, a move to published) and the Publish
action says it; the write is still made, for a look-alike may be another incident's account.
"""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from incidents.models import Case
from tests.conftest import load_fixture

from .conftest import api, write_case

pytestmark = pytest.mark.django_db

SOURCE = (
    "https://github.com/bigscience-workshop/bigscience/blob/master/train/tr11-176B-ml/chronicles-prequel.md"
)
TITLE = "A second account of the BLOOM-176B chronicles written through the API"


def lookalike(**overrides) -> dict:
    """IL-0428's document as a new draft (no id, another title), citing IL-0428's source."""
    document = load_fixture("IL-0428")
    document.pop("id")
    document.update(title=TITLE, related=[], status="draft")
    document.update(overrides)
    return document


def warning(case_id: str, client_base: str = "http://testserver") -> dict:
    return {
        "detail": f"Possible duplicate: {case_id} looks like IL-0428 (same source URL {SOURCE})",
        "id": "IL-0428",
        "title": Case.objects.get(id="IL-0428").title,
        "url": f"{client_base}/cases/IL-0428",
        "reason": f"same source URL {SOURCE}",
    }


def test_creating_a_lookalike_through_the_api_warns_and_creates_it(editor):
    assert SOURCE in [s["url"] for s in load_fixture("IL-0428")["sources"]]
    response = api(editor).post(reverse("api:case-list"), lookalike(status="draft"), format="json")
    assert response.status_code == 201, response.json()
    case_id = response.json()["id"]
    assert response.json()["warnings"] == [warning(case_id)]
    assert Case.objects.get(id=case_id).status == Case.Status.DRAFT


def move(user, case_id: str, etag: str, status: str):
    """`user` moves the case to `status` with the ETag of the last write's answer (a draft
    has no GET to read one from)."""
    url = reverse("api:case-status", args=[case_id])
    return api(user).post(url, {"status": status}, format="json", HTTP_IF_MATCH=etag)


def test_publishing_a_lookalike_through_the_api_warns_and_publishes_it(editor, reviewer):
    created = api(editor).post(reverse("api:case-list"), lookalike(), format="json")
    case_id = created.json()["id"]
    to_review = move(editor, case_id, created["ETag"], "in_review")
    assert (to_review.status_code, to_review.json()["warnings"]) == (200, [])
    published = move(reviewer, case_id, to_review["ETag"], "published")
    assert published.status_code == 200, published.json()
    assert published.json()["warnings"] == [warning(case_id)]
    assert Case.objects.get(id=case_id).status == Case.Status.PUBLISHED


def test_a_reviewer_creating_a_published_lookalike_is_warned(reviewer):
    response = api(reviewer).post(reverse("api:case-list"), lookalike(status="published"), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == [warning(response.json()["id"])]


def test_patching_a_case_to_cite_another_case_s_source_warns(editor):
    patched = write_case(
        editor, "patch", "api:case-detail", "IL-0429", {"sources": [{"title": "Chronicles", "url": SOURCE}]}
    )
    assert patched.status_code == 200, patched.json()
    assert patched.json()["warnings"] == [warning("IL-0429")]


def test_a_write_like_no_other_case_has_no_warnings(editor):
    patched = write_case(editor, "patch", "api:case-detail", "IL-0428", {"lessons": ["Check the cables."]})
    assert (patched.status_code, patched.json()["warnings"]) == (200, [])


def test_the_admin_publish_action_warns_of_a_lookalike(client, editor, reviewer):
    case_id = (
        api(editor).post(reverse("api:case-list"), lookalike(status="in_review"), format="json").json()["id"]
    )
    client.force_login(reviewer)
    response = client.post(
        reverse("admin:incidents_case_changelist"), {"action": "publish", "_selected_action": [case_id]}
    )
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        f"{case_id} is now published.",
        f"Possible duplicate: {case_id} looks like IL-0428 (same source URL {SOURCE})",
    ]
    assert Case.objects.get(id=case_id).status == Case.Status.PUBLISHED


def test_the_openapi_schema_describes_the_warnings_of_a_write(client):
    schema = client.get(reverse("api:schema"), HTTP_ACCEPT="application/json").json()
    written = schema["components"]["schemas"]["CaseWritten"]
    assert set(written["properties"]["warnings"]["items"]["$ref"].split("/")[-1:]) == {"WriteWarning"}
    assert {"id", "title", "warnings", "url"} <= set(written["properties"])
    status = schema["paths"]["/api/cases/{case_id}/status"]["post"]["responses"]["200"]
    assert status["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/CaseWritten"}
