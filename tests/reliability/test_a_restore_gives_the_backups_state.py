"""`import_cases --restore DIR` puts the database in the backup's state or refuses: into a
database holding cases, history or terms the backup does not, it used to merge (a 173-case
backup restored into a 176-case database left 176 cases). It now refuses, naming what the
database holds beyond the backup and what to do; `--replace` deletes those in the restore's
transaction."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from incidents import services
from incidents.history import case_history
from incidents.models import Case, Facet, Term
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def add_draft(case_id: str) -> None:
    draft = {**load_fixture("IL-0428"), "id": case_id, "status": "draft", "related": []}
    draft["title"] = f"A draft written after the backup ({case_id})"
    services.save_case_document(draft, reason="written after the backup")


def test_a_database_holding_more_than_the_backup_is_refused_unchanged(tmp_path, capsys):
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup")
    held = Case.objects.count()
    for case_id in ("IL-9001", "IL-9002", "IL-9003"):
        add_draft(case_id)

    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--restore", str(backup))

    assert str(refused.value) == (
        "restore refused: the database holds what the backup does not: 3 cases (IL-9001, IL-9002, "
        "IL-9003) with 3 history rows. Nothing was written. Restore into an empty database (a new "
        "DATABASE_URL, then `manage.py migrate`), or run the restore again with --replace, which "
        "deletes them in the restore's transaction."
    )
    assert capsys.readouterr().err == ""
    assert Case.objects.count() == held + 3


def test_replace_deletes_what_the_backup_does_not_hold(tmp_path, capsys):
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup")
    ids = sorted(Case.objects.values_list("id", flat=True))
    rows = {case_id: len(case_history(case_id)) for case_id in ids}
    add_draft("IL-9001")
    Term.objects.create(facet=Facet.TOPIC, slug="added-later", name="Added later", description="after")

    call_command("import_cases", "--restore", str(backup), "--replace")

    out = capsys.readouterr().out
    assert out.splitlines()[-1] == (
        "deleted what the backup does not hold (--replace): 1 case(s), 1 history row(s), 1 term(s)"
    )
    assert sorted(Case.objects.values_list("id", flat=True)) == ids
    assert case_history("IL-9001") == []
    assert not Term.objects.filter(slug="added-later").exists()
    assert {case_id: len(case_history(case_id)) for case_id in ids} == rows
    again = tmp_path / "again"
    call_command("export_cases", str(again), "--backup")
    assert {p.name: p.read_bytes() for p in (again / "cases").iterdir()} == {
        p.name: p.read_bytes() for p in (backup / "cases").iterdir()
    }
    assert (again / "vocab.json").read_bytes() == (backup / "vocab.json").read_bytes()
    assert (again / "editorial.jsonl").read_bytes() == (backup / "editorial.jsonl").read_bytes()
    assert (again / "history.jsonl").read_bytes() == (backup / "history.jsonl").read_bytes()


def test_replace_belongs_to_restore(tmp_path):
    with pytest.raises(CommandError, match="--replace goes with --restore"):
        call_command("import_cases", "--replace", str(tmp_path))


def merge_into_0428(case_id: str, django_user_model) -> None:
    from incidents.roles import ensure_roles
    from incidents.workflow import REVIEWER

    reviewer, _ = django_user_model.objects.get_or_create(username="rita")
    reviewer.groups.add(ensure_roles()[REVIEWER])
    services.merge_cases(case_id, "IL-0428", user=reviewer, reason="a duplicate")


def test_a_backup_holding_a_merge_restores_over_the_database_it_came_from(
    tmp_path, capsys, django_user_model
):
    # Its merged-away id was refused as "never reused", --replace or not: a library with one
    # merge could not be rolled back to last night's backup (found by a fresh walkthrough).
    add_draft("IL-9001")
    merge_into_0428("IL-9001", django_user_model)
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup")

    call_command("import_cases", "--restore", str(backup), "--replace")

    merged = Case.objects.get(id="IL-9001")
    assert (merged.status, merged.merged_into_id) == ("merged", "IL-0428")
    again = tmp_path / "again"
    call_command("export_cases", str(again), "--backup")
    assert {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()} == {
        p.relative_to(backup): p.read_bytes() for p in backup.rglob("*") if p.is_file()
    }


def test_a_backup_from_before_a_merge_takes_the_merge_back(tmp_path, capsys, django_user_model):
    add_draft("IL-9001")
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup")
    merge_into_0428("IL-9001", django_user_model)

    call_command("import_cases", "--restore", str(backup), "--replace")

    restored = Case.objects.get(id="IL-9001")
    assert (restored.status, restored.merged_into_id) == ("draft", None)
