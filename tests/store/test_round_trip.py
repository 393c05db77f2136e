"""Export, import into an empty database, export again: byte-identical files."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from incidents.models import Case, Term
from tests.conftest import CASES_DIR, VOCAB_FILE, fixture_ids

pytestmark = pytest.mark.django_db


def read_tree(directory) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.json"))}


def test_export_import_export_is_byte_identical(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    call_command("export_cases", str(first))
    exported = read_tree(first)
    assert sorted(exported) == [f"{case_id}.json" for case_id in fixture_ids()]

    Case.objects.all().delete()
    Term.objects.all().delete()
    call_command("import_cases", str(first), "--vocab", str(VOCAB_FILE))
    call_command("export_cases", str(second))
    assert read_tree(second) == exported


def test_export_keeps_every_fixture_fact(tmp_path):
    call_command("export_cases", str(tmp_path))
    for path in sorted(CASES_DIR.glob("*.json")):
        original = json.loads(path.read_text(encoding="utf-8"))
        exported = json.loads((tmp_path / path.name).read_text(encoding="utf-8"))
        # Export spells out optional sections in full; everything the fixture says is kept.
        for key, value in original.items():
            if isinstance(value, dict):
                for inner_key, inner_value in value.items():
                    assert exported[key][inner_key] == inner_value, (path.name, key, inner_key)
            else:
                assert exported[key] == value, (path.name, key)


def test_unknown_facts_stay_null_in_the_export(tmp_path):
    call_command("export_cases", str(tmp_path))
    document = json.loads((tmp_path / "IL-0428.json").read_text(encoding="utf-8"))
    assert document["facts"]["severity"] is None
    assert document["facts"]["time_to_resolve"] is None
    assert document["occurred"] is None
    assert document["detection"] is None


def test_fixture_files_are_in_export_form(tmp_path):
    """Exporting over fixtures/cases would change nothing: the files are what export writes."""
    call_command("export_cases", str(tmp_path))
    for path in sorted(CASES_DIR.glob("*.json")):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
