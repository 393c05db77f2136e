"""Triage given a merged-away or retracted case id, and `incident://` of one, say so at every
door, in the words search and get_incident use: triage said nothing of the merge (it answered
with the kept case) or of the retraction (it said only "Nothing like this is known"), and
`incident://IL-0431` read IL-0428 without a word."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.triage import NOTHING_KNOWN
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db(transaction=True)

REASON = "Duplicate of a vendor advisory that names no failure of ours"
MERGED = (
    "Case IL-0431 was merged into IL-0428, listed in its place (its page, GET /api/cases/IL-0428, "
    "get_incident)."
)
RETRACTED = (
    f"Case IL-0480 was retracted: {REASON}. It is left out of search; it still resolves by id "
    "(its page, GET /api/cases/IL-0480, get_incident)."
)


def merge_and_retract() -> None:
    Case.objects.filter(id="IL-0431").update(status=Case.Status.MERGED, merged_into_id="IL-0428")
    Case.objects.filter(id="IL-0480").update(status=Case.Status.RETRACTED, retraction_reason=REASON)


def test_triage_of_a_merged_id_answers_with_the_kept_case_and_says_so(transactional_cases, client):
    merge_and_retract()
    tool = InMemoryMcp().ok("triage", symptoms="IL-0431")
    api = client.post("/api/triage", {"symptoms": "IL-0431"}, content_type="application/json").json()
    for answer in (tool, api):
        assert [case["id"] for case in answer["cases"]] == ["IL-0428"]
        assert (answer["known"], answer["cases"][0]["confidence"]) == (True, "strong")
        assert answer["notes"] == [MERGED]


def test_triage_of_a_retracted_id_says_it_was_retracted_and_why(transactional_cases, client):
    merge_and_retract()
    tool = InMemoryMcp().ok("triage", symptoms="IL-0480")
    api = client.post("/api/triage", {"symptoms": "IL-0480"}, content_type="application/json").json()
    for answer in (tool, api):
        assert (answer["known"], answer["cases"]) == (False, [])
        assert answer["notes"] == [NOTHING_KNOWN, RETRACTED]


def test_incident_resources_say_merged_and_retracted_as_get_incident_does(transactional_cases):
    merge_and_retract()
    mcp = InMemoryMcp()
    merged = mcp.read("incident://IL-0431").splitlines()
    assert merged[0].startswith("# IL-0428: ")
    notice = mcp.ok("get_incident", id="IL-0431", fields=["status"])["notice"]
    assert notice == "IL-0431 was merged into IL-0428 as a duplicate; this is IL-0428."
    assert merged[1:4] == ["", f"> {notice}", ""]
    retracted = mcp.read("incident://IL-0480").splitlines()
    assert retracted[0].startswith("# IL-0480: ")
    assert retracted[1:4] == ["", f"> Retracted: {REASON}", ""]
    assert mcp.ok("get_incident", id="IL-0480", fields=["status"])["notice"] == f"Retracted: {REASON}"
    # A published case reads as before: the headline, then its fields.
    assert not mcp.read("incident://IL-0428").splitlines()[2].startswith(">")


def test_a_retraction_without_a_reason_is_still_said(transactional_cases):
    Case.objects.filter(id="IL-0480").update(status=Case.Status.RETRACTED, retraction_reason="")
    mcp = InMemoryMcp()
    assert mcp.read("incident://IL-0480").splitlines()[2] == "> Retracted."
    assert mcp.ok("get_incident", id="IL-0480", fields=["status"])["notice"] == "Retracted."
