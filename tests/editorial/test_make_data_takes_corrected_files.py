"""`make data` seeded with `import_cases --new-only`, which never replaced a held case: a
corrected file (IL-0497 stopped carrying Xid 13 on 6 December) never reached a library
seeded from the earlier one, short of a plain import that also undid editors' work. Seeding
(`--seed`) now replaces a held case from its file exactly when its latest history row is an
import, and names each kept case whose file changed since, with the import that takes it."""

from __future__ import annotations

import datetime
import json

import pytest
from django.core.management import CommandError, call_command

from incidents import services
from incidents.documents import case_document
from incidents.history import case_history
from incidents.models import Case, CaseTerm, Facet, Term
from incidents.services import import_case_files, importing
from tests.conftest import CASES_DIR, fixture_ids, load_fixture

from .conftest import edit_action_items, merge, retract, run_make_data_import

pytestmark = pytest.mark.django_db

FIXED_SENTENCE = "the GPU driver events seen on some hosts (Xid codes 13 and 43) were unrelated"
EARLIER_SENTENCE = "Xid 13/43 events seen on some hosts were unrelated"


def import_earlier_version(tmp_path, case_id: str, change) -> dict:
    """Import the fixture of `case_id` as `change(document)` leaves it, the way an earlier
    `make data` imported an earlier version of the file; returns that document."""
    document = load_fixture(case_id)
    change(document)
    folder = tmp_path / f"earlier-{case_id}"
    folder.mkdir()
    (folder / f"{case_id}.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    import_case_files(paths=[folder])
    return document


def il_0497_before_its_correction(document: dict) -> None:
    assert FIXED_SENTENCE in document["summary"]
    document["summary"] = document["summary"].replace(FIXED_SENTENCE, EARLIER_SENTENCE)
    document["symptoms"]["error_codes"] = ["Xid 13"]


def earlier_lessons(document: dict) -> None:
    document["lessons"] = ["A lesson the earlier file had."]


def stored(case_id: str) -> dict:
    return dict(case_document(Case.objects.with_document().get(id=case_id)))


def summary_line(out: str) -> str:
    return out.splitlines()[0]


def kept_line(out: str, case_id: str) -> str:
    [line] = [line for line in out.splitlines() if line.startswith(f"kept {case_id} ")]
    return line


def test_an_untouched_case_takes_its_corrected_file_as_an_import(tmp_path, capsys):
    import_earlier_version(tmp_path, "IL-0497", il_0497_before_its_correction)
    assert stored("IL-0497")["symptoms"]["error_codes"] == ["Xid 13"]

    out = run_make_data_import(capsys)

    count = len(fixture_ids())
    assert summary_line(out) == (
        f"seeded {count} case file(s): 0 new, 1 updated from a changed file, {count - 1} unchanged, "
        "0 kept because edited here"
    )
    document = stored("IL-0497")
    assert document["symptoms"]["error_codes"] == []
    assert document["summary"] == load_fixture("IL-0497")["summary"]
    latest = case_history("IL-0497")[0]
    assert (latest.number, latest.user, latest.reason, latest.created) == (3, None, "import", False)
    changes = {change.field: (change.old, change.new) for change in latest.changes}
    assert sorted(changes) == ["summary", "symptoms.error_codes"]
    assert changes["symptoms.error_codes"] == (["Xid 13"], [])


def test_seeding_twice_changes_nothing_the_second_time(tmp_path, capsys):
    import_earlier_version(tmp_path, "IL-0497", il_0497_before_its_correction)
    run_make_data_import(capsys)
    modified = Case.objects.get(id="IL-0497").modified

    out = run_make_data_import(capsys)

    count = len(fixture_ids())
    assert summary_line(out) == (
        f"seeded {count} case file(s): 0 new, 0 updated from a changed file, {count} unchanged, "
        "0 kept because edited here"
    )
    assert Case.objects.get(id="IL-0497").modified == modified
    assert len(case_history("IL-0497")) == 3


def test_an_edited_case_is_kept_and_named_with_the_import_that_takes_its_file(tmp_path, editor, capsys):
    import_earlier_version(tmp_path, "IL-0429", earlier_lessons)
    edit_action_items(editor, "IL-0429", ["Alert on a rank that stops logging."])

    out = run_make_data_import(capsys)

    count = len(fixture_ids())
    assert summary_line(out) == (
        f"seeded {count} case file(s): 0 new, 0 updated from a changed file, {count - 1} unchanged, "
        "1 kept because edited here"
    )
    line = kept_line(out, "IL-0429")
    when = case_history("IL-0429")[0].when.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    assert line == (
        f"kept IL-0429 as changed here ({when} by edna: PATCH through the API); its file changed "
        "since its last import and was not applied: "
        f"`manage.py import_cases {CASES_DIR / 'IL-0429.json'}` replaces the case with the file, "
        "undoing the changes made here"
    )
    case = Case.objects.get(id="IL-0429")
    assert (case.action_items, case.lessons) == (
        ["Alert on a rank that stops logging."],
        ["A lesson the earlier file had."],
    )
    assert case_history("IL-0429")[0].user == "edna"

    # The import the line names takes the file, as it says.
    call_command("import_cases", str(CASES_DIR / "IL-0429.json"))
    assert stored("IL-0429")["lessons"] == load_fixture("IL-0429")["lessons"]


def test_a_retracted_case_stays_retracted_and_is_named(tmp_path, reviewer, capsys):
    import_earlier_version(tmp_path, "IL-0430", earlier_lessons)
    retract(reviewer, "IL-0430", "Source withdrawn.")

    out = run_make_data_import(capsys)

    assert "1 kept because edited here" in summary_line(out)
    assert kept_line(out, "IL-0430").startswith("kept IL-0430 as changed here (retracted; ")
    assert " by rita: Source withdrawn.); its file changed since its last import" in kept_line(out, "IL-0430")
    case = Case.objects.get(id="IL-0430")
    assert (case.status, case.retraction_reason, case.lessons) == (
        "retracted",
        "Source withdrawn.",
        ["A lesson the earlier file had."],
    )


def test_an_accepted_correction_keeps_the_case(tmp_path, reviewer, capsys):
    import_earlier_version(tmp_path, "IL-0497", il_0497_before_its_correction)
    services.note_in_history("IL-0497", user=reviewer, reason="correction accepted: Xid 13 is ruled out")

    out = run_make_data_import(capsys)

    assert "1 kept because edited here" in summary_line(out)
    assert " by rita: correction accepted: Xid 13 is ruled out); its file changed" in kept_line(
        out, "IL-0497"
    )
    assert stored("IL-0497")["symptoms"]["error_codes"] == ["Xid 13"]


def test_a_merged_away_id_is_not_recreated_even_when_its_file_changed(tmp_path, reviewer, capsys):
    import_earlier_version(tmp_path, "IL-0432", earlier_lessons)
    merge(reviewer, "IL-0432", "IL-0431")

    out = run_make_data_import(capsys)

    assert "skipped IL-0432: merged into IL-0431, its id is never reused" in out.splitlines()
    assert "kept IL-0432" not in out
    case = Case.objects.get(id="IL-0432")
    assert (case.status, case.merged_into_id, case.lessons) == (
        "merged",
        "IL-0431",
        ["A lesson the earlier file had."],
    )


def test_an_edit_saved_while_the_files_are_checked_is_kept(tmp_path, editor, capsys, monkeypatch):
    import_earlier_version(tmp_path, "IL-0497", il_0497_before_its_correction)
    validate_batch = importing.validate_batch

    def validate_then_edit(items, definitions, **options):
        # An editor saves the case after seeding read the history, before it takes the lock.
        monkeypatch.setattr(importing, "validate_batch", validate_batch)
        document = stored("IL-0497")
        document["action_items"] = ["Pin NCCL 2.29.3 or later on Grace hosts."]
        services.save_case_document(document, user=editor, reason="admin edit")
        return validate_batch(items, definitions, **options)

    monkeypatch.setattr(importing, "validate_batch", validate_then_edit)

    out = run_make_data_import(capsys)

    assert "0 updated from a changed file" in summary_line(out)
    assert " by edna: admin edit); its file changed since its last import" in kept_line(out, "IL-0497")
    document = stored("IL-0497")
    assert (document["action_items"], document["symptoms"]["error_codes"]) == (
        ["Pin NCCL 2.29.3 or later on Grace hosts."],
        ["Xid 13"],
    )


def test_a_dry_run_says_what_seeding_would_do_and_writes_nothing(tmp_path, capsys):
    import_earlier_version(tmp_path, "IL-0497", il_0497_before_its_correction)

    out = run_make_data_import(capsys, "--dry-run")

    count = len(fixture_ids())
    assert summary_line(out) == (
        f"would seed {count} case file(s): 0 new, 1 updated from a changed file, {count - 1} unchanged, "
        "0 kept because edited here"
    )
    assert stored("IL-0497")["symptoms"]["error_codes"] == ["Xid 13"]


def test_seed_and_new_only_cannot_be_combined():
    with pytest.raises(CommandError, match="not allowed with argument"):
        call_command("import_cases", "--seed", "--new-only", str(CASES_DIR / "IL-0428.json"))


def test_cases_a_term_rename_rewrote_are_kept_without_claiming_their_files_changed(capsys):
    term = Term.objects.get(facet=Facet.SYMPTOM, slug="training-job-failure")
    showing = set(CaseTerm.objects.filter(term=term).values_list("case_id", flat=True))
    assert len(showing) > 1
    term.name = "Training job died"
    services.save_term(term)

    out = run_make_data_import(capsys)

    # Their files still name the term as their last import did: nothing to take, nothing named.
    assert f"{len(showing)} kept because edited here" in summary_line(out)
    assert not [line for line in out.splitlines() if line.startswith("kept ")]
    assert {link.case_id for link in CaseTerm.objects.filter(term=term)} == showing
