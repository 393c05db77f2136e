"""The case admin edits `affected`, `references` and the error codes a case states: checked
by import's own validation (a bad value is an error on its field, nothing is written) and
stored as an import of the same document stores them."""

from __future__ import annotations

import copy
import json

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from incidents import services
from incidents.documents import case_document, dumps_document
from incidents.history import case_history
from incidents.models import Case, CaseKey, CaseTerm
from tests.conftest import CASES_DIR, load_fixture

from .conftest import CASE_CHANGE, case_change_form, form_data

pytestmark = pytest.mark.django_db


def save(client, case_id: str, data: dict[str, list[str]]):
    return client.post(reverse(CASE_CHANGE, args=[case_id]), data)


def document_of(case_id: str) -> dict:
    return case_document(Case.objects.with_document().get(id=case_id))


def field_errors(response) -> dict[str, list[str]]:
    """The errors of the admin form the page shows, by field (`__all__`: the form's own)."""
    return {name: list(errors) for name, errors in response.context["adminform"].form.errors.items()}


def test_the_change_form_shows_the_three_as_the_case_document_has_them(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0601")
    fixture = load_fixture("IL-0601")
    assert json.loads(data["affected"][0]) == fixture["affected"]
    assert json.loads(data["references"][0]) == fixture["references"]
    assert data["error_codes"] == ["Xid 94"]
    # Keys in the schema's order (PostgreSQL's jsonb keeps them in its own).
    assert list(json.loads(data["references"][0])[0]) == ["kind", "id", "url", "state", "fixed_in"]


@pytest.mark.parametrize("case_id", ["IL-0601", "IL-0603", "IL-0579"])
def test_an_untouched_save_records_nothing_and_exports_the_file_again(client, editor, case_id):
    # IL-0601 has all three; IL-0603 states four codes in an order that is not the
    # vocabulary's (the order a browser sends them in); IL-0579 has none.
    before = Case.objects.get(id=case_id)
    client.force_login(editor)
    data = case_change_form(client, case_id)
    data["error_codes"] = sorted(data.get("error_codes", []))  # as a browser may send them
    data["_continue"] = ["Save and continue editing"]
    response = save(client, case_id, data)
    assert response.status_code == 302, field_errors(response)
    assert Case.objects.get(id=case_id).modified == before.modified
    assert len(case_history(case_id)) == 1  # only the import
    exported = dumps_document(document_of(case_id))
    assert exported == (CASES_DIR / f"{case_id}.json").read_text(encoding="utf-8")
    assert LogEntry.objects.get(object_id=case_id).get_change_message() == "No fields changed."


def test_affected_is_stored_as_import_stores_it(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0601")
    typed = [
        *json.loads(data["affected"][0]),
        {"component": "nccl", "versions": ["2.18.1", "2.18.3"], "fixed": "2.19.3"},
    ]
    data["affected"] = [json.dumps(typed)]
    response = save(client, "IL-0601", data)
    assert response.status_code == 302, field_errors(response)
    stored = document_of("IL-0601")["affected"]
    assert stored[-1] == {
        "component": "NCCL",  # the component term's name, as import writes it
        "versions": ["2.18.1", "2.18.3"],
        "introduced": None,
        "fixed": "2.19.3",
        "last_affected": None,
    }
    assert CaseKey.objects.filter(case_id="IL-0601", kind=CaseKey.Kind.AFFECTED, key="nccl").exists()
    [latest, _] = case_history("IL-0601")
    assert (latest.user, [c.field for c in latest.changes]) == ("edna", ["affected"])
    # An import of the same document stores exactly this: saving it changes nothing.
    document = load_fixture("IL-0601")
    document["affected"] = typed
    assert services.save_case_document(document, user=editor).changed is False


def test_references_are_stored_as_import_stores_them_and_looked_up(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0601")
    typed = [
        *json.loads(data["references"][0]),
        {"kind": "pull_request", "url": "https://github.com/NVIDIA/nccl/pull/1405", "state": "open"},
    ]
    data["references"] = [json.dumps(typed, indent=4)]
    response = save(client, "IL-0601", data)
    assert response.status_code == 302, field_errors(response)
    assert document_of("IL-0601")["references"][-1] == {
        "kind": "pull_request",
        "id": "NVIDIA/nccl#1405",  # filled from the URL, as import fills it
        "url": "https://github.com/NVIDIA/nccl/pull/1405",
        "state": "open",
        "fixed_in": None,
    }
    body = client.get(reverse("api:lookup"), {"ref": "nvidia/nccl#1405"}).json()
    assert "IL-0601" in [case["id"] for case in body["cases"]]
    [latest, _] = case_history("IL-0601")
    assert [c.field for c in latest.changes] == ["references"]
    document = load_fixture("IL-0601")
    document["references"] = typed
    assert services.save_case_document(document, user=editor).changed is False


def test_error_codes_are_chosen_from_the_vocabulary_kept_in_order_and_removed(client, editor):
    client.force_login(editor)
    page = client.get(reverse(CASE_CHANGE, args=["IL-0601"])).content.decode()
    assert '<option value="Xid 79">Xid 79 (NVIDIA driver)</option>' in page
    data = form_data(page, "case_form")
    data["error_codes"] = ["NODE_FAIL", "Xid 79", "Xid 94"]  # option order, not the case's
    response = save(client, "IL-0601", data)
    assert response.status_code == 302, field_errors(response)
    assert document_of("IL-0601")["symptoms"]["error_codes"] == ["Xid 94", "NODE_FAIL", "Xid 79"]
    stated = CaseTerm.objects.filter(case_id="IL-0601", term__facet="error_code", derived=False)
    assert sorted(stated.values_list("term__name", flat=True)) == ["NODE_FAIL", "Xid 79", "Xid 94"]
    [latest, _] = case_history("IL-0601")
    assert [(c.field, c.old, c.new) for c in latest.changes] == [
        ("symptoms.error_codes", ["Xid 94"], ["Xid 94", "NODE_FAIL", "Xid 79"])
    ]
    code_page = client.get(reverse("incidents:code-detail", args=["xid-79"])).content.decode()
    assert reverse("incidents:case-detail", args=["IL-0601"]) in code_page

    # Unchosen, NODE_FAIL goes; Xid 94 stays, as the case's text shows it: an import of the
    # same document derives it from the text the same way.
    data = case_change_form(client, "IL-0601")
    data["error_codes"] = ["Xid 79"]
    assert save(client, "IL-0601", data).status_code == 302
    assert document_of("IL-0601")["symptoms"]["error_codes"] == ["Xid 79", "Xid 94"]
    assert CaseTerm.objects.get(case_id="IL-0601", term__slug="xid-94").derived is True


def test_a_code_the_text_shows_is_kept_as_import_keeps_it(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0497")
    data["summary"] = [data["summary"][0] + "\n\nThe kernel log showed Xid 79 on one node."]
    assert save(client, "IL-0497", data).status_code == 302
    assert document_of("IL-0497")["symptoms"]["error_codes"] == ["Xid 79"]
    assert CaseTerm.objects.get(case_id="IL-0497", term__slug="xid-79").derived is True
    # The form lists only the codes the case states, and says which the text adds.
    page = client.get(reverse(CASE_CHANGE, args=["IL-0497"])).content.decode()
    data = form_data(page, "case_form")
    assert data["error_codes"] == []
    assert "need not be chosen; now: Xid 79." in page
    data["_continue"] = ["Save and continue editing"]
    modified = Case.objects.get(id="IL-0497").modified
    assert save(client, "IL-0497", data).status_code == 302
    assert Case.objects.get(id="IL-0497").modified == modified


DEEP = "[" * 400 + "]" * 400
BAD_VALUES = [
    ("affected", '[{"component": "NCCL",}]', "affected", "not valid JSON: Expecting property name"),
    (
        "affected",
        '[{"component": "NCCLX", "versions": ["2.18.1"]}]',
        "affected",
        "affected[0].component: unknown component 'NCCLX' (did you mean 'NCCL'?)",
    ),
    (
        "affected",
        '[{"component": "NCCL", "fixed": "2.19", "last_affected": "2.18"}]',
        "affected",
        "affected[0]: give `fixed` (first version with the fix) or `last_affected`",
    ),
    (
        "affected",
        '{"component": "NCCL"}',
        "affected",
        "affected: {'component': 'NCCL'} is not of type 'array'",
    ),
    (
        "affected",
        '[{"component": "NCCL", "fixd": "2.19"}]',
        "affected",
        "affected[0]: Additional properties are not allowed ('fixd' was unexpected)",
    ),
    (
        "references",
        '[{"kind": "bug", "url": "https://example.org/b/1"}]',
        "references",
        "references[0].kind: 'bug' is not one of",
    ),
    (
        "references",
        '[{"kind": "issue", "url": "https://github.com/NVIDIA/nccl/issues/1", "id": "NVIDIA/nccl#2"}]',
        "references",
        "references[0].id: id 'NVIDIA/nccl#2' names another record than its url ('NVIDIA/nccl#1')",
    ),
    ("references", "[1e999]", "references", "not valid JSON: 1e999 is too large for a number"),
    # Deep values the JSON reader takes: import's validation compared the two versions item
    # by item, recursively, and raised RecursionError (a 500) past about 300 levels.
    ("affected", f'[{{"component": "NCCL", "versions": [{DEEP}, {DEEP}]}}]', "affected", "nested too deeply"),
    (
        "references",
        f'[{{"kind": "issue", "url": "https://example.org/b/1", "id": {DEEP}}}]',
        "references",
        "nested too deeply",
    ),
    ("affected", "[" * 100_000 + "]" * 100_000, "affected", "not valid JSON: nested too deeply"),
    (
        "error_codes",
        ["Xid 7900"],
        "error_codes",
        # Where codes come from, named as the README names it: the command and its option. Only
        # the close code ('Xid 95' and 'Xid 94' were letters in common by difflib's ratio).
        "symptoms.error_codes[0]: unknown error code 'Xid 7900' (did you mean 'Xid 79'?); add it, "
        "or this spelling as a synonym of one, to the error_codes of a vocabulary file passed with "
        "manage.py import_cases --vocab",
    ),
]


@pytest.mark.parametrize(("name", "value", "field", "message"), BAD_VALUES)
def test_a_bad_value_is_an_error_on_its_field_and_nothing_changes(
    client, editor, name, value, field, message
):
    before = copy.deepcopy(document_of("IL-0601"))
    modified = Case.objects.get(id="IL-0601").modified
    client.force_login(editor)
    data = case_change_form(client, "IL-0601")
    data[name] = value if isinstance(value, list) else [value]
    response = save(client, "IL-0601", data)
    assert response.status_code == 200
    errors = field_errors(response)
    assert list(errors) == [field]
    assert [error for error in errors[field] if message in error], errors
    # The form comes back with what was typed, to be corrected.
    if isinstance(value, str):
        assert form_data(response.content.decode(), "case_form")[name] == [value]
    assert document_of("IL-0601") == before
    assert Case.objects.get(id="IL-0601").modified == modified
    assert len(case_history("IL-0601")) == 1


def test_other_problems_of_the_document_stay_on_their_fields(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0601")
    data["time_to_detect"] = ["about an hour"]
    data["affected"] = ['[{"component": "NCCL", "fixd": "2.19"}]']
    response = save(client, "IL-0601", data)
    assert response.status_code == 200
    errors = field_errors(response)
    assert sorted(errors) == ["affected", "time_to_detect"]
    assert errors["time_to_detect"][0].startswith("facts.time_to_detect: ")
    assert errors["affected"][0].startswith("affected[0]: Additional properties are not allowed")


def test_the_term_rows_leave_error_codes_to_their_field(client, editor):
    client.force_login(editor)
    page = client.get(reverse(CASE_CHANGE, args=["IL-0601"])).content.decode()
    assert "Error code: Xid 94" not in page  # no term row for it
    autocomplete = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "incidents", "model_name": "caseterm", "field_name": "term", "term": "xid"},
    ).json()
    offered = [item["text"] for item in autocomplete["results"]]
    assert "Symptom tag: Xid error" in offered
    assert not [text for text in offered if text.startswith("Error code")]
