"""Line breaks are stored as `\\n` whichever door text comes through: browsers send a
textarea's as CRLF, a file may hold them, a script may send a lone CR. An admin form
saved untouched is no change (no history row, `modified` kept) and export still gives
back the fixture files byte for byte."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.documents import case_document, dumps_document
from incidents.history import case_history
from incidents.line_endings import unix_newlines, with_unix_newlines
from incidents.models import Case, Term
from incidents.proposals import services as proposal_services
from incidents.proposals.models import Proposal
from incidents.services import change_status
from tests.conftest import CASES_DIR, load_fixture
from tests.factories import NEW_PROPOSAL, synthetic_case

from .conftest import api, etag_of, form_data

pytestmark = pytest.mark.django_db

CHANGE = "admin:incidents_case_change"


def as_a_browser_sends(data: dict[str, list[str]]) -> dict[str, list[str]]:
    """Form values with every line break as CRLF, as a browser submits a textarea."""
    return {key: [value.replace("\n", "\r\n") for value in values] for key, values in data.items()}


def exported(case_id: str) -> str:
    return dumps_document(case_document(Case.objects.with_document().get(id=case_id)))


def test_the_helpers_rewrite_crlf_and_lone_cr_only():
    assert unix_newlines("a\r\nb\rc\nd") == "a\nb\nc\nd"
    document = {"summary": "one\r\n\r\ntwo", "lessons": ["a\rb"], "count": 3, "keep": None}
    assert with_unix_newlines(document) == {
        "summary": "one\n\ntwo",
        "lessons": ["a\nb"],
        "count": 3,
        "keep": None,
    }
    plain = {"summary": "one\n\ntwo"}
    assert with_unix_newlines(plain) is plain


def test_an_admin_form_saved_untouched_changes_nothing(client, editor):
    assert "\n" in load_fixture("IL-0497")["summary"]
    before = Case.objects.get(id="IL-0497")
    client.force_login(editor)
    page = client.get(reverse(CHANGE, args=["IL-0497"])).content.decode()
    data = as_a_browser_sends(form_data(page, "case_form"))
    assert "\r\n" in data["summary"][0]
    data["_continue"] = ["Save and continue editing"]
    response = client.post(reverse(CHANGE, args=["IL-0497"]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    after = Case.objects.get(id="IL-0497")
    assert after.modified == before.modified
    assert after.summary == before.summary and "\r" not in after.summary
    assert len(case_history("IL-0497")) == 1  # only the import
    assert exported("IL-0497") == (CASES_DIR / "IL-0497.json").read_text(encoding="utf-8")
    # The admin's own log says so too, rather than "Changed Summary".
    assert LogEntry.objects.get(object_id="IL-0497").get_change_message() == "No fields changed."


def test_an_admin_edit_is_stored_with_lf_and_records_only_what_changed(client, editor):
    client.force_login(editor)
    page = client.get(reverse(CHANGE, args=["IL-0428"])).content.decode()
    data = as_a_browser_sends(form_data(page, "case_form"))
    assert "\r\n" in data["symptoms_description"][0]
    data["summary"] = [data["summary"][0] + "\r\n\r\nA paragraph added in the admin."]
    assert client.post(reverse(CHANGE, args=["IL-0428"]), data).status_code == 302
    summary = Case.objects.get(id="IL-0428").summary
    assert summary == load_fixture("IL-0428")["summary"] + "\n\nA paragraph added in the admin."
    [latest, _] = case_history("IL-0428")
    assert [change.field for change in latest.changes] == ["summary"]


def test_a_write_api_patch_is_stored_with_lf(editor):
    client = api(editor)
    url = reverse("api:case-detail", args=["IL-0428"])
    etag = etag_of(client, "IL-0428")
    body = {"summary": "First paragraph.\r\n\r\nSecond one.\rThird line.", "lessons": ["One\r\ntwo"]}
    response = client.patch(url, body, format="json", HTTP_IF_MATCH=etag)
    assert response.status_code == 200, response.json()
    assert response.json()["summary"] == "First paragraph.\n\nSecond one.\nThird line."
    case = Case.objects.get(id="IL-0428")
    assert (case.summary, case.lessons) == ("First paragraph.\n\nSecond one.\nThird line.", ["One\ntwo"])
    response = APIClient().get(reverse("api:export"))
    assert response.streaming
    export = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert b"Second one.\\nThird line." in export and b"\\r" not in export


def test_an_imported_file_with_crlf_is_stored_with_lf(import_synthetic):
    document = synthetic_case(7, summary="Windows line breaks.\r\n\r\nIn a file.")
    document["symptoms"]["description"] = "One\r\ntwo"
    [case_id] = import_synthetic(document)
    case = Case.objects.get(id=case_id)
    assert (case.summary, case.symptoms_description) == ("Windows line breaks.\n\nIn a file.", "One\ntwo")
    # The same file again is no change.
    import_synthetic(document)
    assert len(case_history(case_id)) == 1


def test_proposal_texts_and_reasons_are_stored_with_lf(client, editor, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api": None, "api-heavy": None, "proposals": "100/minute"},
    }
    topic = Term.objects.get(facet="topic", slug=NEW_PROPOSAL["topic"])
    text = "What happened.\r\n\r\nWhat fixed it."
    response = client.post(reverse("incidents:propose"), {**NEW_PROPOSAL, "topic": topic.pk, "text": text})
    assert response.status_code == 302
    proposal = Proposal.objects.get()
    assert proposal.text == "What happened.\n\nWhat fixed it."
    assert Case.objects.get(id=proposal.case_id).summary == "What happened.\n\nWhat fixed it."
    correction = APIClient().post(
        reverse("api:proposal-create"),
        {
            "kind": "correction",
            "case_id": "IL-0428",
            "title": "The time to resolve is wrong",
            "text": text,
            "source_urls": ["https://example.org/a"],
        },
        format="json",
    )
    assert correction.status_code == 201, correction.json()
    assert Proposal.objects.get(kind="correction").text == "What happened.\n\nWhat fixed it."
    proposal_services.decline(proposal, user=editor, reason="Not an incident.\r\nSee the source.")
    assert Proposal.objects.get(pk=proposal.pk).decline_reason == "Not an incident.\nSee the source."


def test_a_retraction_reason_is_stored_with_lf(reviewer):
    change_status("IL-0428", "retracted", user=reviewer, reason="The source was withdrawn.\r\nSee its note.")
    assert Case.objects.get(id="IL-0428").retraction_reason == "The source was withdrawn.\nSee its note."
