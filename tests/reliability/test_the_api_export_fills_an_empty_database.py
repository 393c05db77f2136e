"""`/api/export` imports into an empty database, as the README says: the cases as JSON
Lines and, from `/api/export/vocab` (which the export's `Link` header names), the vocabulary
in the `--vocab` format. Both used to fail: import read no JSON Lines, and `/api/vocab/` is
not a definitions file."""

from __future__ import annotations

import json

import pytest

from tests.reliability.scratch import scratch_database

pytestmark = pytest.mark.django_db


def test_the_export_and_its_vocabulary_import_into_an_empty_database(client, tmp_path):
    export = client.get("/api/export")
    assert export["Link"] == '</api/export/vocab>; rel="describedby"; type="application/json"'
    cases = tmp_path / "export.jsonl"
    cases.write_bytes(export.getvalue())
    vocabulary = client.get("/api/export/vocab")
    assert vocabulary.status_code == 200 and vocabulary["Content-Type"] == "application/json"
    vocab = tmp_path / "vocab.json"
    vocab.write_bytes(vocabulary.content)
    served = {document["id"]: document for document in map(json.loads, cases.read_text().splitlines())}
    assert len(served) > 100

    for database in scratch_database(tmp_path, "from_api"):
        assert database.manage("migrate", "--no-input").returncode == 0
        imported = database.manage("import_cases", "--neighbours-later", "--vocab", str(vocab), str(cases))
        assert imported.returncode == 0, imported.stderr
        assert imported.stdout.startswith(f"imported {len(served)} case(s): {len(served)} new, 0 updated")
        again = database.manage("export_cases", str(tmp_path / "again"), "--vocab", str(tmp_path / "v2.json"))
        assert again.returncode == 0, again.stderr
        assert {
            path.stem: json.loads(path.read_text()) for path in (tmp_path / "again").glob("*.json")
        } == served
        assert json.loads((tmp_path / "v2.json").read_text()) == json.loads(vocab.read_text())


def test_the_vocabulary_export_takes_no_parameters(client):
    response = client.get("/api/export/vocab?facet=topics")
    assert response.status_code == 400
