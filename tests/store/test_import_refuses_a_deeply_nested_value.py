"""An import file holding a value nested hundreds of levels deep is refused whole, naming the
file and the field, and writes nothing (not even the batch's good files): the schema check
walked it recursively (jsonschema) and raised RecursionError, which no one caught."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from incidents.models import Case
from incidents.problems import ImportProblem
from incidents.validation import LoadedDocument, schema_problems
from tests.conftest import VOCAB_FILE
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

TOO_DEEP = "nested too deeply: lists and objects more than 32 levels deep"


def write_deep_case(directory, levels: int) -> str:
    """A synthetic case file whose one `affected` entry lists two versions, each `levels`
    lists one inside the next (a file the JSON reader takes: it is no deeper than that)."""
    document = synthetic_case(2, affected="AFFECTED")
    nested = "[" * levels + "]" * levels
    text = json.dumps(document).replace(
        '"AFFECTED"', f'[{{"component": "NCCL", "versions": [{nested}, {nested}]}}]'
    )
    path = directory / f"{document['id']}.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("levels", [400, 900])
def test_import_cases_refuses_the_batch_naming_file_and_path(tmp_path, capsys, levels):
    write_cases(tmp_path, [synthetic_case(1)])
    deep = write_deep_case(tmp_path, levels)
    cases = Case.objects.count()
    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--vocab", str(VOCAB_FILE), str(tmp_path))
    assert capsys.readouterr().err.splitlines() == [f"{deep}: $.affected: {TOO_DEEP}"]
    assert "1 problem" in str(refused.value)
    assert Case.objects.count() == cases
    assert not Case.objects.filter(id__in=["IL-900001", "IL-900002"]).exists()


def test_objects_count_as_lists_do_and_a_document_that_is_no_object_is_named_by_dollar():
    deep: dict = {}
    node = deep
    for _ in range(600):
        node["x"] = {}
        node = node["x"]
    document = {**synthetic_case(3), "notes": deep}
    assert schema_problems(LoadedDocument("a.json", document)) == [
        ImportProblem("a.json", "$.notes", TOO_DEEP)
    ]
    # A file holding a JSON array reaches validation as it is (`load_documents`).
    nested: Any = [[]]
    for _ in range(600):
        nested = [nested]
    assert schema_problems(LoadedDocument("b.json", nested)) == [ImportProblem("b.json", "$", TOO_DEEP)]
