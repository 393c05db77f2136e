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


def test_the_vocabulary_and_cases_round_trip_through_export(tmp_path):
    """export_cases --vocab, then import both into an empty store: the same vocabulary
    (organizations and accelerators with their aliases, vendors and families included),
    the same documents and the same organization and accelerator links."""
    from incidents.exporting import vocabulary_document
    from incidents.models import ALIAS_FACETS, CaseTerm

    def links() -> set[tuple[str, str, str]]:
        return set(
            CaseTerm.objects.filter(term__facet__in=ALIAS_FACETS).values_list(
                "case_id", "term__facet", "term__slug"
            )
        )

    vocab, cases = tmp_path / "vocab.json", tmp_path / "cases"
    call_command("export_cases", str(cases), "--vocab", str(vocab), stdout=open("/dev/null", "w"))
    before_vocabulary, before_links = vocabulary_document(), links()
    assert {"organizations", "accelerators"} <= set(json.loads(vocab.read_text(encoding="utf-8")))
    assert len(before_links) > len(fixture_ids())  # every case's organization, and accelerators

    Case.objects.all().delete()
    Term.objects.all().delete()
    call_command("import_cases", str(cases), "--vocab", str(vocab), stdout=open("/dev/null", "w"))
    assert vocabulary_document() == before_vocabulary
    assert links() == before_links
    again = tmp_path / "again"
    call_command("export_cases", str(again), stdout=open("/dev/null", "w"))
    assert read_tree(again) == read_tree(cases)
