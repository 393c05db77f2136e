"""`export_cases --backup DIR` leaves DIR holding exactly the new backup: an earlier backup
there is replaced whole (a nightly backup into one folder used to keep the case files of
cases gone since, and the restore then refused the folder), a folder holding anything else
is refused untouched, and a backup that fails half-way leaves the earlier one as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from incidents import backup, services
from incidents.models import Case
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def tree(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


def test_a_backup_into_an_earlier_one_replaces_it_whole(tmp_path, capsys):
    folder = tmp_path / "nightly"
    call_command("export_cases", str(folder), "--backup")
    fresh = tree(folder)
    # The earlier backup held three cases the library has no longer, and older files.
    for number in (9001, 9002, 9003):
        (folder / "cases" / f"IL-{number}.json").write_text("{}", encoding="utf-8")
    (folder / "history.jsonl").write_text("", encoding="utf-8")
    folder.chmod(0o750)

    call_command("export_cases", str(folder), "--backup")

    assert tree(folder) == fresh
    assert sorted(p.name for p in (folder / "cases").iterdir()) == sorted(
        f"{case_id}.json" for case_id in Case.objects.values_list("id", flat=True)
    )
    assert folder.stat().st_mode & 0o777 == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["nightly"]  # no staging folder left behind
    assert f"backed up {Case.objects.count()} case(s)" in capsys.readouterr().out


def test_a_folder_holding_anything_else_is_refused_untouched(tmp_path):
    folder = tmp_path / "home"
    (folder / "cases").mkdir(parents=True)
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    (folder / "cases" / "README").write_text("mine too", encoding="utf-8")
    before = tree(folder)

    with pytest.raises(CommandError) as refused:
        call_command("export_cases", str(folder), "--backup")

    assert str(refused.value) == (
        f"{folder} holds what no backup writes (cases/README, notes.txt); a backup replaces the "
        "folder it is written to: give a new or empty folder, or one holding an earlier backup"
    )
    assert tree(folder) == before
    assert [p.name for p in tmp_path.iterdir()] == ["home"]


def test_a_backup_that_fails_half_way_leaves_the_earlier_one(tmp_path, monkeypatch):
    folder = tmp_path / "nightly"
    call_command("export_cases", str(folder), "--backup")
    earlier = tree(folder)
    draft = {**load_fixture("IL-0428"), "id": "IL-9001", "status": "draft", "related": []}
    services.save_case_document(draft, reason="written after the backup")

    def disk_full(path: Path) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backup, "export_vocabulary", disk_full)  # after the cases were written
    with pytest.raises(OSError, match="No space left"):
        call_command("export_cases", str(folder), "--backup")

    assert tree(folder) == earlier
    assert [p.name for p in tmp_path.iterdir()] == ["nightly"]


def test_an_empty_or_new_folder_takes_a_backup(tmp_path):
    (tmp_path / "empty").mkdir()
    call_command("export_cases", str(tmp_path / "empty"), "--backup")
    call_command("export_cases", str(tmp_path / "new" / "nested"), "--backup")
    assert tree(tmp_path / "empty") == tree(tmp_path / "new" / "nested")
    assert {"vocab.json", "editorial.jsonl", "history.jsonl"} <= set(tree(tmp_path / "empty"))
