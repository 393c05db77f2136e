"""A first bulk import may leave the similar-case lists to `rebuild_search --neighbours`;
until then each case's list is computed on the fly and equals what the rebuild stores."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from incidents.models import Case
from incidents.search import deferred, similar_cases
from incidents.search.models import CaseNeighbour
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

SAMPLE = ("IL-0463", "IL-0464", "IL-900003", "IL-900150")


def lists(case_ids=SAMPLE) -> dict[str, list[tuple]]:
    return {
        case_id: [
            (s.case.id, s.score, s.score_parts, s.shared_terms, s.shared_words)
            for s in similar_cases(Case.objects.get(id=case_id), limit=10)
        ]
        for case_id in case_ids
    }


def test_lists_computed_on_the_fly_equal_the_stored_ones_after_the_rebuild(tmp_path):
    count = Case.objects.published().count() + 10  # more than half of the library is new
    write_cases(tmp_path, [synthetic_case(n) for n in range(1, count)])
    import_case_files(paths=[tmp_path], defer_neighbours=True)
    assert deferred.pending() and not CaseNeighbour.objects.exists()
    meanwhile = lists()
    assert all(len(found) == 10 for found in meanwhile.values())
    assert {row[0] for row in meanwhile["IL-0464"][:2]} == {"IL-0463", "IL-0518"}

    call_command("rebuild_search", "--neighbours")
    assert not deferred.pending()
    assert CaseNeighbour.objects.count() >= 10 * count
    assert lists() == meanwhile


def test_an_import_while_the_lists_are_pending_waits_for_the_rebuild_too(tmp_path):
    count = Case.objects.published().count() + 10
    write_cases(tmp_path / "first", [synthetic_case(n) for n in range(1, count)])
    import_case_files(paths=[tmp_path / "first"], defer_neighbours=True)
    write_cases(tmp_path / "more", [synthetic_case(n) for n in range(count, count + 2)])
    import_case_files(paths=[tmp_path / "more"])
    late = f"IL-{900000 + count}"
    assert deferred.pending_for(late)
    meanwhile = lists((late, "IL-0463"))
    call_command("rebuild_search", "--neighbours")
    assert lists((late, "IL-0463")) == meanwhile


def test_without_deferral_a_bulk_import_stores_its_lists(tmp_path):
    count = Case.objects.published().count() + 10
    write_cases(tmp_path, [synthetic_case(n) for n in range(1, count)])
    import_case_files(paths=[tmp_path])
    assert not deferred.pending()
    assert CaseNeighbour.objects.filter(case_id="IL-900003").count() == 10


def test_the_step_after_an_import_reads_the_stored_profiles_not_the_case_texts(tmp_path, monkeypatch):
    from incidents.search import profiles
    from incidents.search.similarity import rebuild_neighbours

    count = Case.objects.published().count() + 10
    write_cases(tmp_path, [synthetic_case(n) for n in range(1, count)])
    import_case_files(paths=[tmp_path], defer_neighbours=True)
    read_texts = profiles.cases_for_index

    def no_text_read(*args, **kwargs):
        raise AssertionError("the step read case texts again")

    monkeypatch.setattr(profiles, "cases_for_index", no_text_read)
    call_command("rebuild_search", "--neighbours")
    assert not deferred.pending()
    from_stored = lists()

    monkeypatch.setattr(profiles, "cases_for_index", read_texts)
    rebuild_neighbours(refresh_profiles=True)
    assert lists() == from_stored
