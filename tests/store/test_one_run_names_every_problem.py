"""One import run names every problem of a file: the problems across documents and the
database (an unknown related case, a scale row naming no column, an unknown term) of a
document the schema refuses are reported beside the schema's, where its fields allow; one
file used to take four runs, each showing the next stage's problems."""

from __future__ import annotations

import json

import pytest

from incidents.problems import CaseImportError
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db


def problems_of(paths, vocab=()) -> list[str]:
    with pytest.raises(CaseImportError) as refused:
        import_case_files(paths=paths, vocab_paths=vocab)
    return [str(problem) for problem in refused.value.problems]


def test_a_document_the_schema_refuses_is_checked_across_documents_too(tmp_path):
    document = synthetic_case(1)
    document["status"] = "live"  # the schema's
    del document["summary"]  # the schema's, at $
    document["related"] = ["IL-7777"]
    document["scale_tables"][0]["rows"][0]["values"]["nodes"] = 2
    document["environment"]["components"] = ["Frobnicator"]
    [path] = write_cases(tmp_path, [document])

    assert problems_of([path]) == [
        f"{path}: $: 'summary' is a required property",
        f"{path}: $.status: 'live' is not one of ['draft', 'in_review', 'published', 'retracted']",
        f"{path}: $.related[0]: related case 'IL-7777' is neither in this import nor in the database",
        f"{path}: $.scale_tables[0].rows[0].values.nodes: 'nodes' is not a column of this table "
        "(columns: gpus)",
        f"{path}: $.environment.components[0]: unknown component 'Frobnicator'; define it in a "
        "vocabulary file passed with manage.py import_cases --vocab",
    ]


def test_a_field_the_schema_refuses_is_not_checked_again(tmp_path):
    document = synthetic_case(2)
    document["related"] = ["IL-7777", 5]
    document["scale_tables"] = "none"
    [path] = write_cases(tmp_path, [document])

    assert problems_of([path]) == [
        f"{path}: $.related[1]: 5 is not of type 'string'",
        f"{path}: $.scale_tables: 'none' is not of type 'array'",
        f"{path}: $.related[0]: related case 'IL-7777' is neither in this import nor in the database",
    ]


def test_relating_to_a_refused_document_names_only_its_problem(tmp_path):
    broken = synthetic_case(3, status="live")
    relating = synthetic_case(4, related=[broken["id"]])
    paths = write_cases(tmp_path, [broken, relating])

    assert problems_of(paths) == [
        f"{paths[0]}: $.status: 'live' is not one of ['draft', 'in_review', 'published', 'retracted']"
    ]


def test_a_broken_vocabulary_file_leaves_the_other_checks_to_run(tmp_path):
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({"components": [{"name": "X"}]}), encoding="utf-8")
    document = synthetic_case(5, related=["IL-7777"])
    [path] = write_cases(tmp_path / "cases", [document])

    assert problems_of([path], [vocab]) == [
        f"{vocab}: $.components[0]: 'description' is a required property",
        f"{path}: $.related[0]: related case 'IL-7777' is neither in this import nor in the database",
    ]
