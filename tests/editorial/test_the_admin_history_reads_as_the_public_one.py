"""The admin's history of a case reads as its public history page does: statuses in words
(`In review`), lists as text (`—` → `Roll back the driver`), and no reason where the status
change wrote its own (`status: in_review`). It showed django-simple-history's raw values:
`in_review`, `[] → ['Roll back …']` and the reason "status: in_review" (an editor's
walkthrough); it now lists the public page's revisions (`history.case_history`), shown by
the same template and `history_value`."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse

from incidents import services
from incidents.history import revisions_by_row
from incidents.models import Case
from tests.web.html import element, text_of

from .conftest import edit_action_items

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed_case(editor, reviewer) -> str:
    """IL-0428 made a draft (unrecorded), then three entries: sent for review, published (no
    reason given: each writes `status: <status>`) and given an action item."""
    Case.objects.filter(id="IL-0428").update(status=Case.Status.DRAFT)
    services.change_status("IL-0428", Case.Status.IN_REVIEW, user=editor)
    services.change_status("IL-0428", Case.Status.PUBLISHED, user=reviewer)
    edit_action_items(editor, "IL-0428", ["Roll back the driver"])
    return "IL-0428"


def admin_history(client, user, case_id: str) -> str:
    client.force_login(user)
    response = client.get(reverse("admin:incidents_case_history", args=[case_id]))
    assert response.status_code == 200
    return response.content.decode()


def rows(html: str) -> list[str]:
    """The text of each entry of the admin's history table, its changes table within."""
    body = element(element(html, "table", id="change-history"), "tbody")
    return [text_of(row) for row in re.split(r"<tr>\s*<td>", body)[1:]]


def test_the_admin_history_says_statuses_lists_and_reasons_in_words(client, editor, reviewed_case):
    html = admin_history(client, editor, reviewed_case)
    edit, published, review, imported = rows(html)
    assert "in_review" not in html and "status: " not in html and "[]" not in html
    changed = "Fields changed in version {} Field Before After"  # the changes table's caption, head
    assert edit.startswith("Version 4 ")
    assert edit.endswith(
        f"Changed by edna PATCH through the API Published {changed.format(4)} "
        "action_items — Roll back the driver"
    )
    assert published.startswith("Version 3 ")
    assert published.endswith(f"Changed by rita Published {changed.format(3)} status In review Published")
    assert review.startswith("Version 2 ")
    assert review.endswith(f"Changed by edna In review {changed.format(2)} status Published In review")
    assert imported.startswith("Version 1 ")
    assert f"Created by an import import Published {changed.format(1)} id — IL-0428 " in imported


def test_the_admin_and_the_public_page_list_the_same_changes(client, editor, reviewed_case):
    html = admin_history(client, editor, reviewed_case)
    public = client.get(reverse("incidents:case-history", args=[reviewed_case])).content.decode()
    sections = public.split('<section class="revision"')[1:]
    assert len(sections) == 4
    assert all(text_of(element(section, "table", class_="diff")) in text_of(html) for section in sections)


def test_each_admin_row_is_one_revision_of_the_case(reviewed_case):
    revisions = revisions_by_row(reviewed_case)
    assert sorted(r.number for r in revisions.values()) == list(range(1, len(revisions) + 1))
    assert set(revisions) == set(Case.history.filter(id=reviewed_case).values_list("history_id", flat=True))


def test_the_admin_dates_each_version_as_the_public_page_does_in_utc(client, editor, reviewed_case):
    # The admin showed Django's "Dec. 7, 2026, 6:05 a.m.", saying no time zone, where the
    # public page says "7 December 2026, 06:05 UTC".
    moment = r'<time datetime="([^"]+)">([^<]+)</time>'
    html = admin_history(client, editor, reviewed_case)
    admin = re.findall(rf">Version (\d+)</a></td>\s*<td>{moment}</td>", html)
    public_html = client.get(reverse("incidents:case-history", args=[reviewed_case])).content.decode()
    public = re.findall(rf'id="rev-(\d+)">Version \d+ · {moment}</h2>', public_html)
    assert len(admin) == 4 and sorted(admin) == sorted(public)
    for _, iso, shown in admin:
        when = datetime.datetime.fromisoformat(iso)
        assert when.utcoffset() == datetime.timedelta(0)
        assert shown == f"{when.day} {when:%B %Y, %H:%M} UTC"
