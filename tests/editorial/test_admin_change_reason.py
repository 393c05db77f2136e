"""An editor says why they changed a case: the admin's "Reason for this change" is kept with
that change's history row, whole, and read on the case's history page and in its API
history. A save that changes nothing records nothing, reason or not."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils.html import escape

from incidents import services
from incidents.history import case_history
from incidents.models import Case, ScaleTable

from .conftest import form_data

pytestmark = pytest.mark.django_db

CHANGE = "admin:incidents_case_change"
# Longer than the 100 characters simple-history's reason column held.
REASON = (
    "The source's second update (2024-03-02) gives the fixed NCCL release; corrected the "
    "severity to match what the postmortem says & linked the pull request."
)


def edit_severity(client, case_id: str, severity: str | None, reason: str | None):
    """Save the case form with `severity` (None: as it is) and `reason` (None: none typed)."""
    data = form_data(client.get(reverse(CHANGE, args=[case_id])).content.decode(), "case_form")
    if severity is not None:
        data["severity"] = [severity]
    if reason is not None:
        data["change_reason"] = [reason]
    return client.post(reverse(CHANGE, args=[case_id]), data)


def test_the_reason_is_kept_whole_with_the_history_row_of_that_save(client, editor):
    client.force_login(editor)
    response = edit_severity(client, "IL-0428", "low", REASON.replace(" & ", "\r\n& "))
    assert response.status_code == 302
    [latest, first] = case_history("IL-0428")
    assert (latest.user, latest.reason) == ("edna", REASON.replace(" & ", "\n& "))
    assert [c.field for c in latest.changes] == ["facts.severity"]
    assert first.reason == "import"


def test_the_history_page_and_the_api_show_the_reason(client, editor):
    client.force_login(editor)
    assert edit_severity(client, "IL-0428", "low", REASON).status_code == 302
    client.logout()
    page = client.get(reverse("incidents:case-history", args=["IL-0428"])).content.decode()
    assert f"Changed by edna · {escape(REASON)} · status Published" in page
    body = client.get(reverse("api:case-history", args=["IL-0428"])).json()
    assert [(r["number"], r["user"], r["reason"]) for r in body["results"]] == [
        (2, "edna", REASON),
        (1, None, "import"),
    ]


def test_without_a_reason_the_change_reads_admin_edit(client, editor):
    client.force_login(editor)
    assert edit_severity(client, "IL-0428", "low", "   ").status_code == 302
    assert case_history("IL-0428")[0].reason == "admin edit"
    body = client.get(reverse("api:case-history", args=["IL-0428"])).json()
    assert body["results"][0]["reason"] == "admin edit"


def test_a_reason_alone_changes_nothing_and_says_so(client, editor):
    client.force_login(editor)
    modified = Case.objects.get(id="IL-0428").modified
    response = edit_severity(client, "IL-0428", None, REASON)
    assert response.status_code == 302
    assert Case.objects.get(id="IL-0428").modified == modified
    assert len(case_history("IL-0428")) == 1
    # One message, the warning: "was changed successfully" beside it would contradict it.
    assert [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)] == [
        ("warning", "Nothing changed, so no history entry was recorded for your reason.")
    ]
    assert LogEntry.objects.get(object_id="IL-0428").get_change_message() == "No fields changed."


def test_an_untouched_save_says_nothing_changed(client, editor):
    client.force_login(editor)
    response = edit_severity(client, "IL-0428", None, None)
    assert response.status_code == 302
    assert len(case_history("IL-0428")) == 1
    assert [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)] == [
        ("info", "Nothing changed.")
    ]


def test_a_save_that_changes_something_says_it_was_changed(client, editor):
    client.force_login(editor)
    response = edit_severity(client, "IL-0428", "low", None)
    [(level, message)] = [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)]
    assert level == "success" and message.endswith("” was changed successfully.")


def test_a_reason_too_long_is_an_error_on_its_field(client, editor):
    client.force_login(editor)
    response = edit_severity(client, "IL-0428", "low", "x" * 2001)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["change_reason"]
    assert "at most 2000 characters" in errors["change_reason"][0]
    assert len(case_history("IL-0428")) == 1


def test_a_scale_table_edit_takes_a_reason_too(client, editor):
    table = ScaleTable.objects.filter(case_id="IL-0428").order_by("position").first()
    assert table is not None
    client.force_login(editor)
    url = reverse("admin:incidents_scaletable_change", args=[table.pk])
    data = form_data(client.get(url).content.decode(), "scaletable_form")
    data["caption"] = [data["caption"][0] + " (per run)"]
    data["change_reason"] = ["The table counts runs, not jobs."]
    assert client.post(url, data).status_code == 302
    latest = case_history("IL-0428")[0]
    assert (latest.reason, [c.field for c in latest.changes]) == (
        "The table counts runs, not jobs.",
        ["scale_tables"],
    )


def test_a_reason_written_by_a_service_is_no_longer_cut_at_100_characters(reviewer):
    services.change_status("IL-0430", Case.Status.RETRACTED, user=reviewer, reason=REASON)
    assert case_history("IL-0430")[0].reason == REASON
