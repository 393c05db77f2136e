"""Changing an error code's match patterns re-derives the code on the cases now (issue 15):
`services.save_term` calls `services.rederive_error_code` explicitly (no signals), from the
admin as from code; cases whose text the new patterns match gain it, cases it was derived
for lose it when they no longer match, a code a case states stays."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from incidents import services
from incidents.documents import case_document
from incidents.history import case_history
from incidents.models import Case, CaseTerm, Facet, Term

from .conftest import form_data

pytestmark = pytest.mark.django_db

NOWHERE = r"\bXid 79 is printed nowhere in a case\b"


def carriers(slug: str) -> dict[str, bool]:
    """Case id -> whether the code is derived there (False: the case states it)."""
    return dict(
        CaseTerm.objects.filter(term__facet=Facet.ERROR_CODE, term__slug=slug).values_list(
            "case_id", "derived"
        )
    )


def codes_served(client, case_id: str) -> list[str]:
    return client.get(f"/api/cases/{case_id}").json()["symptoms"]["error_codes"]


def document_of(case_id: str) -> dict:
    return dict(case_document(Case.objects.with_document().get(id=case_id)))


def a_case_without(slug: str) -> str:
    case = Case.objects.published().exclude(id__in=list(carriers(slug))).order_by("id").first()
    assert case is not None
    return case.id


def title_pattern(case_id: str) -> str:
    return re.escape(Case.objects.get(id=case_id).title)


def test_the_fixture_cases_state_their_codes():
    # Every fixture case that shows a code says so (issue 15): none is derived.
    assert carriers("xid-79") == {"IL-0444": False, "IL-0523": False}


def test_a_code_only_the_text_shows_is_stored_as_derived(client):
    case_id = a_case_without("xid-79")
    document = document_of(case_id)
    document["detection"] = (document.get("detection") or "") + " dmesg: NVRM: Xid (PCI:0000:3b:00): 79."
    services.save_case_document(document, reason="test")
    assert carriers("xid-79")[case_id] is True
    assert codes_served(client, case_id)[-1] == "Xid 79"
    # The stored document round-trips (an admin edit, an export): nothing changes.
    assert services.save_case_document(document_of(case_id), reason="round trip").changed is False
    assert carriers("xid-79")[case_id] is True


def test_widened_patterns_put_the_code_on_the_cases_whose_text_they_match(client):
    case_id = a_case_without("xid-79")
    codes_before = codes_served(client, case_id)
    term = Term.objects.get(facet=Facet.ERROR_CODE, slug="xid-79")
    term.patterns = [*term.patterns, title_pattern(case_id)]
    services.save_term(term)
    assert carriers("xid-79") == {"IL-0444": False, "IL-0523": False, case_id: True}
    assert codes_served(client, case_id) == [*codes_before, "Xid 79"]  # derived codes come last
    [latest, *_] = case_history(case_id)
    assert latest.reason == "error code Xid 79: match patterns changed"
    assert [c.field for c in latest.changes] == ["symptoms.error_codes"]
    assert client.get("/api/codes/xid-79").json()["case_count"] == 3
    # An edit of the case afterwards writes the same codes (the import's derivation agrees).
    assert services.save_case_document(document_of(case_id), reason="round trip").changed is False


def test_narrowed_patterns_take_a_derived_code_off_and_keep_stated_ones(client):
    case_id = a_case_without("xid-79")
    term = Term.objects.get(facet=Facet.ERROR_CODE, slug="xid-79")
    term.patterns = [*term.patterns, title_pattern(case_id)]
    services.save_term(term)
    assert carriers("xid-79")[case_id] is True
    term.patterns = [NOWHERE]
    services.save_term(term)
    # The two cases that state Xid 79 keep it though their text no longer matches.
    assert carriers("xid-79") == {"IL-0444": False, "IL-0523": False}
    assert "Xid 79" not in codes_served(client, case_id)
    listed = client.get("/api/cases/", {"error_code": "xid-79"}).json()
    assert sorted(c["id"] for c in listed["results"]) == ["IL-0444", "IL-0523"]


def test_the_admin_change_form_rederives_through_the_service(client, reviewer):
    case_id = a_case_without("xid-79")
    client.force_login(reviewer)
    term = Term.objects.get(facet=Facet.ERROR_CODE, slug="xid-79")
    url = reverse("admin:incidents_term_change", args=[term.pk])
    data = form_data(client.get(url).content.decode(), "term_form")
    data["patterns"] = [data["patterns"][0] + "\n" + title_pattern(case_id)]
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert codes_served(client, case_id)[-1] == "Xid 79"
    [latest, *_] = case_history(case_id)
    assert (latest.user, latest.reason) == ("rita", "error code Xid 79: match patterns changed")


def test_a_term_saved_with_the_same_patterns_changes_no_case(client):
    term = Term.objects.get(facet=Facet.ERROR_CODE, slug="xid-79")
    before = carriers("xid-79")
    history_before = {case_id: len(case_history(case_id)) for case_id in before}
    term.description = term.description + " (edited)"
    services.save_term(term)
    assert carriers("xid-79") == before
    assert {case_id: len(case_history(case_id)) for case_id in before} == history_before


def test_a_case_whose_codes_are_rederived_is_listed_as_changed(client):
    # Its document changed (`symptoms.error_codes`): mirrors must refetch it, and an ETag of
    # it read before is stale for a write (its `modified` is the case's version).
    case_id = a_case_without("xid-79")
    modified = Case.objects.get(id=case_id).modified
    term = Term.objects.get(facet=Facet.ERROR_CODE, slug="xid-79")
    term.patterns = [*term.patterns, title_pattern(case_id)]
    services.save_term(term)
    assert Case.objects.get(id=case_id).modified > modified
    assert client.get("/api/changes?limit=1").json()["results"][0]["id"] == case_id
