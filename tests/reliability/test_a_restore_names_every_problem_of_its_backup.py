"""A restore checks the backup's case documents whatever else in it is wrong (they used to
wait until editorial.jsonl and history.jsonl were right), and a term the documents name
that the backup lacks is worded for the restore: the backup's own vocab.json, not "a
vocabulary file passed with manage.py import_cases --vocab", which a restore does not take."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def test_the_documents_are_checked_beside_the_other_files_and_worded_for_the_restore(tmp_path, capsys):
    backup = tmp_path / "backup"
    call_command("export_cases", str(backup), "--backup")
    case_file = backup / "cases" / "IL-0428.json"
    document = json.loads(case_file.read_text(encoding="utf-8"))
    case_file.write_text(json.dumps({**document, "organization": "Nowhere Labs"}), encoding="utf-8")
    with open(backup / "editorial.jsonl", "a", encoding="utf-8") as out:
        out.write('{"id": "IL-0428"}\n')
    lines = len((backup / "editorial.jsonl").read_text(encoding="utf-8").splitlines())

    with pytest.raises(CommandError, match=r"restore refused: 2 problem\(s\)"):
        call_command("import_cases", "--restore", str(backup))

    assert capsys.readouterr().err.splitlines() == [
        f"{backup / 'editorial.jsonl'}: line {lines}: needs an id and a status out of "
        "['draft', 'in_review', 'merged', 'published', 'retracted']",
        f"{case_file}: $.organization: unknown organization 'Nowhere Labs'; add it, or this spelling "
        f"as a synonym of one, to the organizations of the backup's vocab.json ({backup / 'vocab.json'})",
    ]
