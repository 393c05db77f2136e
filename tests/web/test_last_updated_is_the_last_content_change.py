"""The case page's "Last updated" is when the case's content last changed, read from its
history rows (`history.content_changed`): `Case.modified` also moves on writes that change no
content (an accepted correction noted in the history, the kept case of a merge) and on a
restore, which writes every case at the restore's time while the history keeps the times of
its changes; the page showed those times. The case page's query count is unchanged
(tests/web/test_query_counts.py): the time is read in the query that reads the case."""

from __future__ import annotations

import re

import pytest

from incidents import services
from incidents.backup import export_backup, restore_backup
from incidents.models import Case
from incidents.workflow import EDITOR, REVIEWER
from tests.conftest import load_fixture
from tests.editorial.conftest import make_user

pytestmark = pytest.mark.django_db


def last_updated(client, case_id: str, label: str = "Last updated") -> tuple[str, str]:
    """The page's "Last updated" (or another `label` of that line) as (machine time, the
    words shown)."""
    page = client.get(f"/cases/{case_id}").content.decode()
    found = re.search(rf'<p class="meta updated">{label} <time datetime="([^"]+)">([^<]+)</time>', page)
    assert found, f"no {label}"
    return found.group(1), found.group(2)


def history_times(case_id: str) -> list[str]:
    rows = Case.history.filter(id=case_id).order_by("history_date", "history_id")
    return [row.history_date.isoformat() for row in rows]


def test_an_imported_case_says_when_it_was_added_not_last_updated(client):
    """Every bundled case said "Last updated" on the day of `make run`, beside "reported 4
    March 2022": read as "revised today". Unchanged since, it says when it was added."""
    [imported] = history_times("IL-0428")
    assert Case.objects.get(id="IL-0428").added.isoformat() == imported
    assert last_updated(client, "IL-0428", "Added to the library")[0] == imported
    assert "Last updated" not in client.get("/cases/IL-0428").content.decode()


def test_a_noted_correction_and_a_merge_change_no_content_and_no_date(client):
    imported = history_times("IL-0428")[0]
    editor, reviewer = make_user("edna", EDITOR), make_user("rita", REVIEWER)
    services.note_in_history("IL-0428", user=editor, reason="correction 7: nothing to change")
    services.merge_cases("IL-0429", "IL-0428", user=reviewer)
    kept = Case.objects.get(id="IL-0428")
    assert len(history_times("IL-0428")) == 3 and kept.modified.isoformat() > imported
    assert last_updated(client, "IL-0428", "Added to the library")[0] == imported


def test_an_edit_and_a_retraction_are_content_changes(client):
    document = load_fixture("IL-0430")
    document["facts"]["severity"] = "low"
    editor, reviewer = make_user("edna", EDITOR), make_user("rita", REVIEWER)
    services.save_case_document(document, user=editor, reason="severity per the source")
    edited = Case.objects.get(id="IL-0430").modified
    assert last_updated(client, "IL-0430")[0] == edited.isoformat()
    services.change_status("IL-0430", "retracted", user=reviewer, reason="source withdrawn")
    assert last_updated(client, "IL-0430")[0] == Case.objects.get(id="IL-0430").modified.isoformat()


def test_a_restored_case_shows_its_last_change_not_the_restore(client, tmp_path):
    editor = make_user("edna", EDITOR)
    document = load_fixture("IL-0431")
    document["summary"] += " A later account adds the timeline."
    services.save_case_document(document, user=editor, reason="timeline")
    edited = Case.objects.get(id="IL-0431").modified
    export_backup(tmp_path)
    # A change after the backup, so that restoring it writes the case anew (an equal
    # document is left alone), as a restore into an empty database writes every case; the
    # restore drops that change and its history row, so only with `replace`.
    document["summary"] += " Later still."
    services.save_case_document(document, user=editor, reason="after the backup")
    restore_backup(tmp_path, replace=True)
    assert Case.objects.get(id="IL-0431").modified > edited  # written by the restore
    assert history_times("IL-0431")[-1] == edited.isoformat()  # the backup's history
    assert last_updated(client, "IL-0431") == (edited.isoformat(), f"{edited.day} {edited:%B %Y}")
