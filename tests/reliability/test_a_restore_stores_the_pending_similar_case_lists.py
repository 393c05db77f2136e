"""`import_cases --restore` stores the similar-case lists left pending, as a plain import does.

A library imported with `--neighbours-later` has its lists pending until
`rebuild_search --neighbours`; a restore into it marked its cases pending too and stored
none, and said nothing, so similar cases and the first hit's nearest case stayed on the
slower way (lists computed on the fly, no `nearest_to_first`) until someone ran the step by
hand. The restore now runs the step after its write (`finish_pending`) and says so, as a
plain import does.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from incidents.search import deferred
from incidents.search.models import CaseNeighbour

pytestmark = pytest.mark.django_db


def lists() -> list[tuple[str, str, int]]:
    return sorted(CaseNeighbour.objects.values_list("case_id", "neighbour_id", "rank"))


def test_a_restore_into_a_library_with_pending_lists_stores_them(tmp_path):
    built = lists()
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup", stdout=io.StringIO())
    # What a `--neighbours-later` import leaves: every list pending, none stored.
    deferred.mark()
    CaseNeighbour.objects.all().delete()

    out = io.StringIO()
    call_command("import_cases", "--restore", str(backup), stdout=out)

    said = out.getvalue().splitlines()
    assert said[0].startswith("restored 173 case(s)")
    # Said before the (on a first run, minutes long) work, then its result.
    assert said[-2].startswith("storing the similar-case lists (the first run computes sentence vectors")
    assert said[-1].startswith(f"stored {len(built)} neighbour(s) in ")
    assert deferred.pending() is False
    assert lists() == built


def test_a_restore_with_nothing_pending_says_nothing_of_lists(tmp_path):
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup", stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_cases", "--restore", str(backup), stdout=out)
    assert [line for line in out.getvalue().splitlines() if "neighbour" in line] == []
    assert deferred.pending() is False
