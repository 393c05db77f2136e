"""Backup and restore (issue 12.7): `export_cases --backup` then `import_cases --restore` into
an empty database (a scratch one, in child processes, on the backend under test) gives back
every case field for field, its editorial state and its whole history: the restored
database's own backup is byte for byte the original's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from incidents import services
from incidents.history import case_history
from incidents.workflow import EDITOR, REVIEWER
from tests.conftest import load_fixture
from tests.editorial.conftest import make_user
from tests.reliability.scratch import scratch_database

pytestmark = pytest.mark.django_db


def read_tree(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


def editorial_work() -> None:
    """A retraction, a merge, a new draft sent to review: each leaves history with a user."""
    editor, reviewer = make_user("edna", EDITOR), make_user("rita", REVIEWER)
    services.change_status("IL-0432", "retracted", user=reviewer, reason="the source was withdrawn")
    services.merge_cases("IL-0434", "IL-0433", user=reviewer, reason="the same outage")
    draft = {**load_fixture("IL-0428"), "id": "IL-0999", "status": "draft", "related": []}
    draft["title"] = "A draft written by an editor, not yet reviewed or published"
    services.save_case_document(draft, user=editor, reason="first draft")
    services.change_status("IL-0999", "in_review", user=editor, reason="ready")


def test_a_backup_restored_into_an_empty_database_is_the_same_store(tmp_path):
    editorial_work()
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup")
    original = read_tree(backup)
    cases = {name for name in original if name.startswith("cases/")}
    assert {"vocab.json", "editorial.jsonl", "history.jsonl"} <= set(original) and len(cases) > 1

    # What the backup holds beyond the documents, as written.
    editorial = {line["id"]: line for line in map(json.loads, (backup / "editorial.jsonl").open())}
    assert editorial["IL-0432"] == {
        "id": "IL-0432",
        "status": "retracted",
        "retraction_reason": "the source was withdrawn",
        "merged_into": None,
    }
    assert editorial["IL-0434"]["status"] == "merged" and editorial["IL-0434"]["merged_into"] == "IL-0433"
    assert editorial["IL-0999"]["status"] == "in_review"
    history = [json.loads(line) for line in (backup / "history.jsonl").open()]
    draft_rows = [row for row in history if row["columns"]["id"] == "IL-0999"]
    assert [
        (r["user"], r["columns"]["status"], r["columns"]["history_change_reason"]) for r in draft_rows
    ] == [
        ("edna", "draft", "first draft"),
        ("edna", "in_review", "ready"),
    ]
    assert len(history) == sum(len(case_history(name[6:-5])) for name in cases)

    for database in scratch_database(tmp_path, "restore"):
        assert database.manage("migrate", "--no-input").returncode == 0
        restored = database.manage("import_cases", "--restore", str(backup))
        assert restored.returncode == 0, restored.stderr
        assert restored.stdout.startswith(f"restored {len(cases)} case(s)")
        again = database.manage("export_cases", str(tmp_path / "again"), "--backup")
        assert again.returncode == 0, again.stderr
        # Every case field, the vocabulary, each case's status, retraction reason and merge,
        # and every history row (date, kind, user, reason, columns, document), as before.
        assert read_tree(tmp_path / "again") == original


def test_a_damaged_backup_is_refused_by_file_and_line_and_writes_nothing(tmp_path):
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup")
    with open(backup / "history.jsonl", "a", encoding="utf-8") as out:
        out.write('{"columns": {"id": "IL-0428"}, "user": null}\n')
        out.write("NaN\n")
    for database in scratch_database(tmp_path, "damaged"):
        assert database.manage("migrate", "--no-input").returncode == 0
        result = database.manage("import_cases", "--restore", str(backup))
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        history = backup / "history.jsonl"
        lines = len(history.read_text().splitlines())
        assert f"{history}: line {lines - 1}: $.columns: needs exactly [" in result.stderr
        assert f"{history}: line {lines}: invalid JSON: NaN is not a JSON number" in result.stderr
        assert "restore refused: " in result.stderr and "nothing was written" in result.stderr
        exported = database.manage("export_cases", str(tmp_path / "after"))
        assert "exported 0 case(s)" in exported.stdout
