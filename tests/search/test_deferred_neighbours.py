"""A first bulk import may leave its passage embeddings and similar-case lists to
`rebuild_search --neighbours`; until then search ranks its cases by their words, each list
is computed on the fly, and the step stores what a full rebuild would."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from incidents.models import Case
from incidents.search import deferred, encoder, search_cases, similar_cases
from incidents.search.models import CaseEmbedding, CaseNeighbour, CaseProfile
from incidents.search.similarity import rebuild_neighbours
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


def _no_model(*args, **kwargs):
    raise AssertionError("the import ran the sentence model")


def _encoded(prefix: str = "IL-9") -> int:
    return CaseEmbedding.objects.filter(case__id__startswith=prefix).count()


def test_a_deferred_import_encodes_nothing_and_the_step_stores_what_a_full_rebuild_would(
    tmp_path, monkeypatch
):
    count = Case.objects.published().count() + 10  # more than half of the library is new
    write_cases(tmp_path, [synthetic_case(n) for n in range(1, count)])
    with monkeypatch.context() as patched:
        patched.setattr(encoder, "encode", _no_model)
        import_case_files(paths=[tmp_path], defer_neighbours=True)
    assert deferred.pending() and not CaseNeighbour.objects.exists()
    assert _encoded() == 0
    assert not CaseProfile.objects.filter(case__id__startswith="IL-9", embedding__isnull=False).exists()

    # Meanwhile: search finds the new cases by their words, and the lists are computed on the
    # fly, with no semantic part for a case not encoded yet.
    # Its title quoted: unquoted, its "on N GPUs", which tells the synthetic titles apart, is
    # read as the job's scale and not searched (`scale_words`).
    title = Case.objects.get(id="IL-900003").title
    assert search_cases(query=f'"{title}"').hits[0].case.id == "IL-900003"
    meanwhile = lists()
    assert all(len(found) == 10 for found in meanwhile.values())
    assert {row[0] for row in meanwhile["IL-0464"][:2]} == {"IL-0463", "IL-0518"}
    assert all(row[2]["semantic"] == 0 for row in meanwhile["IL-900003"])

    call_command("rebuild_search", "--neighbours")
    assert not deferred.pending()
    assert _encoded() == count - 1
    assert not CaseProfile.objects.filter(case__status=Case.Status.PUBLISHED, embedding__isnull=True).exists()
    assert CaseNeighbour.objects.count() >= 10 * count
    after = lists()
    assert any(row[2]["semantic"] > 0 for row in after["IL-900003"])
    rebuild_neighbours(refresh_profiles=True)  # every profile again from the case texts
    assert lists() == after


def test_a_deferred_import_drops_the_vectors_of_passages_it_changed(tmp_path):
    """A bulk import that rewrites a case's passages leaves it without vectors until the
    step: no search scores the old text meanwhile."""
    count = Case.objects.published().count() + 10
    kept = Case.objects.get(id="IL-0463")
    assert CaseEmbedding.objects.filter(case_id="IL-0463").exists()
    changed = {**synthetic_case(1), "id": "IL-0463", "title": kept.title + " (revised)"}
    write_cases(tmp_path, [changed, *[synthetic_case(n) for n in range(2, count)]])
    import_case_files(paths=[tmp_path], defer_neighbours=True)
    assert deferred.pending()
    assert not CaseEmbedding.objects.filter(case_id="IL-0463").exists()
    assert CaseEmbedding.objects.filter(case_id="IL-0464").exists()  # not in the import
    assert CaseProfile.objects.get(case_id="IL-0463").embedding is None  # not the old mean
    call_command("rebuild_search", "--neighbours")
    assert CaseEmbedding.objects.filter(case_id="IL-0463").exists()
    after = lists()
    rebuild_neighbours(refresh_profiles=True)  # every profile again from the case texts
    assert lists() == after


def test_a_rebuild_without_the_encoding_leaves_the_unencoded_cases_pending(tmp_path):
    """As when a bulk import commits while a step encodes: the lists the step then stores
    cannot have their semantic part, so those cases wait for the next step."""
    count = Case.objects.published().count() + 10
    write_cases(tmp_path, [synthetic_case(n) for n in range(1, count)])
    import_case_files(paths=[tmp_path], defer_neighbours=True)
    rebuild_neighbours(refresh_profiles=False)
    assert deferred.pending_for("IL-900003") and not deferred.pending_for("IL-0463")
    call_command("rebuild_search", "--neighbours")
    assert not deferred.pending()


def test_without_the_model_package_a_changed_case_keeps_no_old_vectors(tmp_path, monkeypatch):
    """Nothing can be encoded, but the vectors of the old text are dropped: once the package
    is installed, the step finds the case without vectors and encodes it."""
    document = {**synthetic_case(1), "id": "IL-0463"}
    write_cases(tmp_path, [document])
    with monkeypatch.context() as patched:
        patched.setattr(encoder, "available", lambda: False)
        import_case_files(paths=[tmp_path])
        assert not CaseEmbedding.objects.filter(case_id="IL-0463").exists()
    call_command("rebuild_search", "--neighbours")
    assert CaseEmbedding.objects.filter(case_id="IL-0463").exists()


def test_an_import_while_the_lists_are_pending_is_encoded_at_once_and_waits_for_the_step(tmp_path):
    count = Case.objects.published().count() + 10
    write_cases(tmp_path / "first", [synthetic_case(n) for n in range(1, count)])
    import_case_files(paths=[tmp_path / "first"], defer_neighbours=True)
    write_cases(tmp_path / "more", [synthetic_case(n) for n in range(count, count + 2)])
    import_case_files(paths=[tmp_path / "more"])
    late = f"IL-{900000 + count}"
    assert deferred.pending_for(late)
    assert CaseEmbedding.objects.filter(case_id=late).exists()
    assert len(lists((late,))[late]) == 10
    call_command("rebuild_search", "--neighbours")
    after = lists((late, "IL-0463"))
    rebuild_neighbours(refresh_profiles=True)
    assert lists((late, "IL-0463")) == after


def test_without_deferral_a_bulk_import_stores_its_lists(tmp_path):
    count = Case.objects.published().count() + 10
    write_cases(tmp_path, [synthetic_case(n) for n in range(1, count)])
    import_case_files(paths=[tmp_path])
    assert not deferred.pending()
    assert CaseNeighbour.objects.filter(case_id="IL-900003").count() == 10


def test_the_step_after_an_import_reads_the_stored_profiles_not_the_case_texts(tmp_path, monkeypatch):
    from incidents.search import profiles

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


@pytest.mark.parametrize(
    "name",
    [
        "0024_similar_lists_shared_words",  # the text part over words two cases hold (1cbcf01)
        "0027_similar_lists_facet_weights",  # reasons name shared error codes (f93f5f0)
    ],
)
def test_a_rescoring_migration_keeps_old_lists_readable_until_the_step_stores_new_ones(name):
    """Lists stored by the rule before stay shown, pending, until the step."""
    migration = __import__(f"incidents.migrations.{name}", fromlist=["mark_every_list_pending"])
    real = ("IL-0463", "IL-0464")
    expected = lists(real)
    CaseNeighbour.objects.filter(case_id__in=real).update(score=0.999)  # an old rule's scores
    old = lists(real)
    assert old != expected
    from django.apps import apps

    migration.mark_every_list_pending(apps, None)
    assert not CaseProfile.objects.filter(neighbours_pending=False).exists()
    assert lists(real) == old  # readable, not recomputed per request
    call_command("rebuild_search", "--neighbours")
    assert not deferred.pending()
    assert lists(real) == expected
