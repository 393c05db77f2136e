"""`export_cases DIR` leaves DIR holding exactly the cases stored now, as a backup does: the
file of a case deleted since an earlier export there used to stay, and a later
`import_cases DIR` brought the case back. A folder holding anything an export does not
write is refused untouched, and an export that fails half-way leaves the earlier one."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from incidents import exporting, services
from incidents.models import Case
from incidents.roles import ensure_roles
from incidents.workflow import REVIEWER
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def tree(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


def stored_files() -> list[str]:
    return sorted(f"{case_id}.json" for case_id in Case.objects.values_list("id", flat=True))


def save_draft(case_id: str) -> None:
    draft = {**load_fixture("IL-0428"), "id": case_id, "status": "draft", "related": []}
    services.save_case_document(draft, reason="a case deleted later")


def test_a_case_deleted_since_the_last_export_is_not_left_behind(tmp_path, capsys):
    folder = tmp_path / "out"
    save_draft("IL-9001")
    call_command("export_cases", str(folder))
    assert "IL-9001.json" in tree(folder)
    services.delete_cases(["IL-9001"])
    folder.chmod(0o750)

    call_command("export_cases", str(folder))

    assert sorted(tree(folder)) == stored_files()
    assert "IL-9001.json" not in tree(folder)
    assert folder.stat().st_mode & 0o777 == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging folder left behind
    assert f"exported {Case.objects.count()} case(s) to {folder}" in capsys.readouterr().out
    # So importing the folder back does not recreate the deleted case.
    call_command("import_cases", "--new-only", str(folder), stdout=open("/dev/null", "w"))
    assert not Case.objects.filter(id="IL-9001").exists()


def test_an_earlier_export_is_replaced_byte_for_byte(tmp_path):
    folder = tmp_path / "out"
    call_command("export_cases", str(tmp_path / "fresh"))
    fresh = tree(tmp_path / "fresh")
    folder.mkdir()
    (folder / "IL-0428.json").write_text("{}", encoding="utf-8")  # an older file of a held case
    (folder / "IL-9002.json").write_text("{}", encoding="utf-8")  # a case gone since
    call_command("export_cases", str(folder))
    assert tree(folder) == fresh


def test_a_folder_holding_anything_else_is_refused_untouched(tmp_path):
    folder = tmp_path / "home"
    (folder / "drafts").mkdir(parents=True)
    (folder / "IL-0428.json").write_text("{}", encoding="utf-8")
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    (folder / "drafts" / "IL-9003.json").write_text("{}", encoding="utf-8")
    before = tree(folder)

    with pytest.raises(CommandError) as refused:
        call_command("export_cases", str(folder))

    assert str(refused.value) == (
        f"{folder} holds what no export writes (drafts, notes.txt); an export replaces the "
        "folder it is written to: give a new or empty folder, or one holding an earlier export"
    )
    assert tree(folder) == before
    assert [p.name for p in tmp_path.iterdir()] == ["home"]


def test_a_linked_json_file_is_refused(tmp_path):
    """A link is not a file an export wrote: replacing the folder would drop it."""
    folder = tmp_path / "out"
    folder.mkdir()
    (tmp_path / "mine.json").write_text("{}", encoding="utf-8")
    (folder / "IL-0428.json").symlink_to(tmp_path / "mine.json")
    with pytest.raises(CommandError, match=r"holds what no export writes \(IL-0428.json\)"):
        call_command("export_cases", str(folder))
    assert (folder / "IL-0428.json").is_symlink()


def test_an_export_that_fails_half_way_leaves_the_earlier_one(tmp_path, monkeypatch):
    folder = tmp_path / "out"
    call_command("export_cases", str(folder))
    earlier = tree(folder)
    save_draft("IL-9004")
    write = exporting.export_to_directory

    def disk_full(directory: Path, cases=None) -> list[Path]:
        write(directory, cases)  # every file written, then the disk fills
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(exporting, "export_to_directory", disk_full)
    with pytest.raises(OSError, match="No space left"):
        call_command("export_cases", str(folder))

    assert tree(folder) == earlier
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_an_empty_or_new_folder_takes_an_export(tmp_path):
    (tmp_path / "empty").mkdir()
    call_command("export_cases", str(tmp_path / "empty"))
    call_command("export_cases", str(tmp_path / "new" / "nested"))
    assert sorted(tree(tmp_path / "empty")) == stored_files()
    assert tree(tmp_path / "empty") == tree(tmp_path / "new" / "nested")


def test_a_merged_away_case_is_not_exported(tmp_path, capsys, django_user_model):
    # Its document says status "merged", which the case schema does not take: importing the
    # folder back was refused whole ("$.status: 'merged' is not one of ...").
    save_draft("IL-9001")
    reviewer = django_user_model.objects.create_user("rita")
    reviewer.groups.add(ensure_roles()[REVIEWER])
    services.merge_cases("IL-9001", "IL-0428", user=reviewer, reason="a duplicate")
    folder = tmp_path / "out"

    call_command("export_cases", str(folder))

    assert sorted(tree(folder)) == sorted(
        f"{case_id}.json" for case_id in Case.objects.exclude(status="merged").values_list("id", flat=True)
    )
    assert "IL-9001.json" not in tree(folder)
    assert f"exported {Case.objects.count() - 1} case(s) to {folder}" in capsys.readouterr().out
    call_command("import_cases", str(folder), stdout=open("/dev/null", "w"))
    assert Case.objects.get(id="IL-9001").status == "merged"
