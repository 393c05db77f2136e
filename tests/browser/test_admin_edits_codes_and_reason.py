"""An editor corrects a case in the admin with a browser: chooses an error code in the
vocabulary chooser (the admin's script, under the site's Content-Security-Policy), adds an
affected range, says why, is told on the field when a reference is not JSON, and the
reason then reads on the case's public history page, line breaks and all."""

from __future__ import annotations

import json

import pytest

from incidents.documents import case_document
from incidents.history import case_history
from incidents.models import Case
from tests.editorial.conftest import make_user

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Two lines, as an editor types them: the history page shows them as two lines.
REASON = "The driver log in the second source shows Xid 79 too;\nNCCL 2.18.1 was the version run."


def test_an_editor_chooses_a_code_adds_a_range_and_says_why(open_page):
    make_user("edna", "editor")
    page = open_page("/admin/login/?next=/admin/incidents/case/IL-0601/change/")
    sign_in(page, "edna", "/admin/incidents/case/IL-0601/change/")

    # The chooser is the admin's script: the plain select became two lists and a filter.
    page.locator("#id_error_codes_input").fill("Xid 79")
    page.locator("#id_error_codes_from").select_option("Xid 79")
    page.locator("#id_error_codes_add").click()
    assert page.locator("#id_error_codes_to option").all_inner_texts() == [
        "Xid 94 (NVIDIA driver)",
        "Xid 79 (NVIDIA driver)",
    ]
    affected = json.loads(page.locator("#id_affected").input_value())
    page.locator("#id_affected").fill(
        json.dumps([*affected, {"component": "nccl", "versions": ["2.18.1"]}], indent=2)
    )
    page.locator("#id_references").fill('[{"kind": "issue", "url": }]')
    page.get_by_label("Reason for this change").fill(REASON)
    page.locator("input[name=_continue]").click()
    page.wait_for_load_state()

    # A reference that is not JSON: said on its field, nothing saved, the rest kept as typed.
    error = page.locator(".field-references .errorlist").inner_text()
    assert error.startswith("not valid JSON: Expecting value (line 1, column")
    assert len(case_history("IL-0601")) == 1
    assert page.get_by_label("Reason for this change").input_value() == REASON
    page.locator("#id_references").fill(
        json.dumps(case_document(Case.objects.with_document().get(id="IL-0601"))["references"])
    )
    page.locator("input[name=_continue]").click()
    page.wait_for_load_state()
    assert "was changed successfully" in page.locator(".messagelist").inner_text()

    document = case_document(Case.objects.with_document().get(id="IL-0601"))
    assert document["symptoms"]["error_codes"] == ["Xid 94", "Xid 79"]
    assert document["affected"][-1] == {
        "component": "NCCL",
        "versions": ["2.18.1"],
        "introduced": None,
        "fixed": None,
        "last_affected": None,
    }
    [latest, _] = case_history("IL-0601")
    assert (latest.user, latest.reason) == ("edna", REASON)
    assert [c.field for c in latest.changes] == ["symptoms.error_codes", "affected"]

    history = open_page("/cases/IL-0601/history")
    assert f"Changed by edna · {REASON} · status Published" in history.locator("#rev-2 + p.meta").inner_text()
