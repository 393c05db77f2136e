"""A large import compares its new documents' text with the stored cases in a second
process (`services.second_process`) while it writes: the warnings are those the check
gives in-process, and `strict` still refuses the whole import, leaving nothing written.
The threshold is lowered so that three documents take that path."""

from __future__ import annotations

import json

import pytest

from incidents.models import Case
from incidents.problems import CaseImportError
from incidents.services import import_case_files, second_process
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def folder(tmp_path):
    """A near copy of IL-0463, a case citing IL-0523's first source, and one like neither."""
    near = load_fixture("IL-0463")
    near["id"], near["related"] = "IL-990001", []
    citing = load_fixture("IL-0481")
    citing["id"], citing["related"], citing["title"] = "IL-990002", [], "Another title altogether"
    citing["sources"] = load_fixture("IL-0523")["sources"][:1]
    citing["summary"] = citing["symptoms"]["description"] = "A story told in other words entirely."
    other = load_fixture("IL-0481")
    other["id"], other["related"] = "IL-990003", []
    other["title"] = other["summary"] = other["symptoms"]["description"] = "Quiet words of no account."
    other["sources"] = [{"title": "Elsewhere", "url": "https://example.org/incidents/990003"}]
    for document in (near, citing, other):
        (tmp_path / f"{document['id']}.json").write_text(json.dumps(document), encoding="utf-8")
    return tmp_path


def test_the_warnings_are_those_of_the_check_in_process(folder, monkeypatch):
    in_process = import_case_files(paths=[folder], dry_run=True).warnings
    monkeypatch.setattr(second_process, "SECOND_PROCESS_FROM", 1)
    result = import_case_files(paths=[folder])
    assert result.created == ["IL-990001", "IL-990002", "IL-990003"]
    assert result.warnings == in_process
    assert [warning.split(" (")[0] for warning in result.warnings] == [
        "IL-990001 looks like IL-0463",
        "IL-990002 looks like IL-0523",
    ]


def test_strict_refuses_the_import_found_in_the_second_process(folder, monkeypatch):
    monkeypatch.setattr(second_process, "SECOND_PROCESS_FROM", 1)
    with pytest.raises(CaseImportError) as refused:
        import_case_files(paths=[folder], strict=True)
    assert [(p.file.rsplit("/", 1)[1], p.path) for p in refused.value.problems] == [
        ("IL-990001.json", "$"),
        ("IL-990002.json", "$"),
    ]
    assert not Case.objects.filter(id__in=["IL-990001", "IL-990002", "IL-990003"]).exists()
