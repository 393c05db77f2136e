"""get_incident: the case document (as exported), trimmed by `fields`, ids spelled loosely."""

from __future__ import annotations

import pytest
from django.conf import settings

from incidents.models import Case
from mcp_server.links import case_links
from tests.api.fixture_facts import ids_where
from tests.conftest import load_fixture
from tests.mcp.conftest import InMemoryMcp


def test_the_whole_document_is_the_exported_case_with_its_links(mcp):
    for case_id in ("IL-0428", "IL-0430"):
        document = mcp.ok("get_incident", id=case_id)
        assert document == {
            **load_fixture(case_id),
            "url": f"{settings.SITE_URL}/api/cases/{case_id}",
            "html_url": f"{settings.SITE_URL}/cases/{case_id}",
        }


def test_fields_trim_the_document_and_keep_the_id(mcp):
    document = mcp.ok("get_incident", id="IL-0428", fields=["root_cause", "title"])
    fixture = load_fixture("IL-0428")
    # Schema order, whatever order the fields were asked in.
    # The links stay, as the id does: every case a tool names carries them.
    assert list(document) == ["id", "title", "root_cause", "url", "html_url"]
    assert mcp.ok("get_incident", id="IL-0428", fields=["id"]) == {"id": "IL-0428", **case_links("IL-0428")}
    assert document["root_cause"] == fixture["root_cause"]
    assert document["root_cause"]["category"] == "Root cause unknown"


@pytest.mark.parametrize("spelling", ["il-0428", "IL0428", "428", " IL-0428 "])
def test_loose_spellings_of_an_id_resolve(mcp, spelling):
    assert mcp.ok("get_incident", id=spelling, fields=["title"])["id"] == "IL-0428"


def test_an_unknown_id_names_the_closest_ids(mcp):
    assert mcp.error("get_incident", id="IL-0440") == (
        "No incident 'IL-0440'. Closest ids: IL-0439, IL-0441, IL-0438. "
        "To find incidents by what happened, use search_incidents."
    )
    # Words name no id: the newest ids they were once answered with meant nothing.
    assert mcp.error("get_incident", id="nccl hang") == (
        "No incident 'nccl hang': ids look like IL-0428. "
        "To find incidents by what happened, use search_incidents."
    )


def test_an_unknown_field_lists_the_valid_fields(mcp):
    message = mcp.error("get_incident", id="IL-0428", fields=["titel"])
    assert message.startswith("fields: unknown field; choose from id, title, organization,")
    assert message.endswith("related, affected, references (got 'titel'). Send instead: 'title'.")
    # Triage calls the remediation `fix`: the name meant, though spelt like no field.
    assert mcp.error("get_incident", id="IL-0428", fields=["root_cause", "fix"]).endswith(
        "(got 'fix'). Send instead: 'remediation'."
    )
    assert mcp.error("get_incident", id="IL-0428", fields=[]).startswith(
        "fields: name at least one field out of id, title, organization,"
    )


@pytest.mark.django_db(transaction=True)
def test_a_retracted_case_still_resolves_marked_retracted(transactional_cases):
    Case.objects.filter(id="IL-0429").update(status=Case.Status.RETRACTED)
    mcp = InMemoryMcp()
    # Retracted without a reason: the notice still says it was retracted, as incident:// does.
    assert mcp.ok("get_incident", id="IL-0429", fields=["status"]) == {
        "id": "IL-0429",
        "status": "retracted",
        "notice": "Retracted.",
        **case_links("IL-0429"),
    }
    listed = mcp.ok("list_incidents", organization="Meta", limit=50)
    meta = ids_where(lambda d: d["organization"] == "Meta")
    assert "IL-0429" in meta and len(meta) < 50
    assert sorted(c["id"] for c in listed["incidents"]) == [i for i in meta if i != "IL-0429"]


def test_a_number_for_the_id_says_to_send_its_text(mcp):
    """The id's description says IL-0428 "or 428": a JSON number 428 is refused (the argument
    is text) with the text that works, not pydantic's "Input should be a valid string"."""
    assert (
        mcp.error("get_incident", id=428) == 'Invalid arguments: id: must be a string: send "428" (got 428).'
    )
    assert mcp.ok("get_incident", id="428", fields=["title"])["id"] == "IL-0428"
