"""A backup is one snapshot of the database. It read the cases, the vocabulary, the editorial
lines and the history in separate statements, each seeing what was committed by then: a
case written between two of them was in history.jsonl (and editorial.jsonl) but not in
cases/, and a case edited meanwhile had a latest history row its case file did not match.
The reads now share one transaction (`snapshot.one_snapshot`: REPEATABLE READ READ ONLY
on PostgreSQL, one deferred read transaction holding its WAL snapshot on SQLite).

The backup runs in a child process on a scratch database (file-backed SQLite in WAL mode,
as in production, or a PostgreSQL database of its own), so that it opens its own
transaction. Right after the case files are written, a hook runs a second process that
adds a case, edits another and retracts a third, and waits for it to commit: on SQLite
this also shows that the backup holds no write lock (the writer would wait for it).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.reliability.scratch import scratch_database

WRITE = """
from django.contrib.auth import get_user_model
from incidents import services
from incidents.roles import ensure_roles
from incidents.workflow import REVIEWER
from tests.conftest import load_fixture

draft = {**load_fixture("IL-0428"), "id": "IL-9001", "status": "draft", "related": []}
draft["title"] = "A draft written while the backup reads"
services.save_case_document(draft, reason="written during the backup")
edited = {**load_fixture("IL-0428"), "title": "Edited while the backup reads"}
services.save_case_document(edited, reason="edited during the backup")
reviewer = get_user_model().objects.create_user("rita")
reviewer.groups.add(ensure_roles()[REVIEWER])
services.change_status("IL-0432", "retracted", user=reviewer, reason="retracted during the backup")
"""


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_write_committed_while_a_backup_reads_is_in_none_of_its_files(tmp_path):
    # fixtures/ is read by the child processes, which run in the checkout (scratch.ROOT).
    for database in scratch_database(tmp_path, "snapshot"):
        database.seed()
        backup = tmp_path / "backup"

        # The write in a process of its own, between the case files and the rest of the backup.
        result = database.manage_interrupted(
            "incidents.backup._write_cases", WRITE, "export_cases", str(backup), "--backup"
        )

        assert result.returncode == 0, result.stderr
        assert "written meanwhile" in result.stdout and "backed up " in result.stdout
        cases = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (backup / "cases").iterdir()}
        editorial = {line["id"]: line for line in lines(backup / "editorial.jsonl")}
        history = lines(backup / "history.jsonl")
        # The state before the write, in every file.
        assert "IL-9001" not in cases and set(editorial) == set(cases)
        assert {row["columns"]["id"] for row in history} == set(cases)
        assert cases["IL-0428"]["title"] != "Edited while the backup reads"
        assert editorial["IL-0432"]["status"] == "published"
        # Each case's latest history row is the case as backed up.
        latest = {row["columns"]["id"]: row["columns"] for row in history}
        assert {case_id: columns["document"] for case_id, columns in latest.items()} == cases
        assert {case_id: columns["status"] for case_id, columns in latest.items()} == {
            case_id: line["status"] for case_id, line in editorial.items()
        }
        # The write did commit: the next backup holds it.
        again = database.manage("export_cases", str(tmp_path / "again"), "--backup")
        assert again.returncode == 0, again.stderr
        assert (tmp_path / "again" / "cases" / "IL-9001.json").is_file()
        assert {line["id"]: line["status"] for line in lines(tmp_path / "again" / "editorial.jsonl")}[
            "IL-0432"
        ] == "retracted"
