"""One write, one time: a history entry (page and API) shows the `modified` time the change
feed gives for the same write, to the microsecond. They used to differ by the time the
write took (an import stamped its history rows with a clock read after the cases and their
child rows were written), so a mirror could not tell which feed entry a revision was."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import Case, Facet, Term
from incidents.services import import_case_files
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def feed_time(client, case_id: str) -> str:
    rows = client.get("/api/changes", {"limit": 1000}).json()["results"]
    return next(row["modified"] for row in rows if row["id"] == case_id)


def history_times(client, case_id: str) -> list[str]:
    """The API history's times, newest first, and the history page's newest."""
    body = client.get(reverse("api:case-history", args=[case_id])).json()
    return [r["modified"] for r in body["results"]]


def page_time(client, case_id: str) -> str:
    page = client.get(reverse("incidents:case-history", args=[case_id])).content.decode()
    return page.split('<time datetime="', 1)[1].split('"', 1)[0]  # the newest version's


def stored_time(case_id: str) -> str:
    return Case.objects.get(id=case_id).modified.isoformat().replace("+00:00", "Z")


def test_an_import_through_the_service_gives_each_write_one_time(client, tmp_path):
    for case_id in ("IL-0428", "IL-0430"):
        document = load_fixture(case_id)
        document["summary"] += " A later account adds the timeline."
        (tmp_path / f"{case_id}.json").write_text(json.dumps(document), encoding="utf-8")
    result = import_case_files(paths=[tmp_path])
    assert result.updated == ["IL-0428", "IL-0430"]
    times = {}
    for case_id in ("IL-0428", "IL-0430"):
        newest, first = history_times(client, case_id)
        assert newest == feed_time(client, case_id) == stored_time(case_id)
        assert first < newest  # the first import's entry keeps its own time
        assert page_time(client, case_id) == Case.objects.get(id=case_id).modified.isoformat()
        times[case_id] = newest
    # One import, its cases a microsecond apart (the feed's order): each entry has its case's.
    assert times["IL-0428"] != times["IL-0430"]


def test_a_status_change_and_a_merge_give_each_case_one_time(client, reviewer):
    services.change_status("IL-0431", "retracted", user=reviewer, reason="the source was withdrawn")
    assert history_times(client, "IL-0431")[0] == feed_time(client, "IL-0431") == stored_time("IL-0431")
    services.merge_cases("IL-0429", "IL-0428", user=reviewer)
    assert history_times(client, "IL-0428")[0] == feed_time(client, "IL-0428") == stored_time("IL-0428")
    merged = Case.history.filter(id="IL-0429").order_by("-history_date").first()
    assert merged.history_date == Case.objects.get(id="IL-0429").modified


def test_a_re_derived_error_code_moves_the_case_in_the_feed_at_its_history_time(client):
    case_id = "IL-0428"
    before = feed_time(client, case_id)
    term = Term.objects.get(facet=Facet.ERROR_CODE, slug="xid-79")
    term.patterns = [*term.patterns, re.escape(Case.objects.get(id=case_id).title)]
    services.save_term(term)
    # The case's document changed (its error codes): the feed lists it again, at the time
    # its history entry gives.
    assert feed_time(client, case_id) > before
    assert history_times(client, case_id)[0] == feed_time(client, case_id) == stored_time(case_id)
