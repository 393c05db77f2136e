"""Every term-valued field takes any spelling of its term, as organization, accelerator,
error codes and `affected` did: a component named by its synonym (`acmesched` for Acme
Scheduler) used to be refused with "did you mean 'Acme Scheduler'?". The term's reference
(name, or slug for topics and workloads) is what is stored and exported."""

from __future__ import annotations

import json

import pytest

from incidents.documents import case_document
from incidents.models import Case
from incidents.problems import CaseImportError
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

VOCAB = {
    "components": [
        {"name": "Acme Scheduler", "description": "A batch scheduler.", "synonyms": ["acmesched"]}
    ],
    "topics": [{"name": "Acme topic", "slug": "acme-topic", "description": "Acme.", "synonyms": ["acme"]}],
    "symptom_tags": [
        {"name": "Acme stall", "description": "Stalls.", "synonyms": ["stall-acme", "acme-twice"]},
        {"name": "Acme spin", "description": "Spins.", "synonyms": ["acme-twice"]},
    ],
    "root_causes": [{"name": "Acme defect", "description": "A defect.", "synonyms": ["acme bug"]}],
    "workloads": [
        {"name": "Acme batch", "slug": "acme-batch", "description": "Batch.", "synonyms": ["acmeb"]}
    ],
}


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps(VOCAB), encoding="utf-8")
    return path


def test_synonyms_of_every_term_field_resolve_to_their_terms(tmp_path, vocab):
    document = synthetic_case(1)
    document["environment"]["components"] = ["acmesched", "NCCL"]
    # The schema holds topics and workloads to slugs: a synonym written as one resolves.
    document["environment"]["workload"] = "acmeb"
    document["topics"] = ["acme", document["topics"][0]]
    document["symptoms"]["tags"] = ["stall-acme"]
    document["root_cause"]["category"] = "Acme Bug"
    paths = write_cases(tmp_path / "cases", [document])

    import_case_files(paths=paths, vocab_paths=[vocab])

    stored = case_document(Case.objects.with_document().get(id=document["id"]))
    assert stored["environment"]["components"] == ["Acme Scheduler", "NCCL"]
    assert stored["environment"]["workload"] == "acme-batch"
    assert stored["topics"] == ["acme-topic", document["topics"][1]]
    assert stored["symptoms"]["tags"] == ["Acme stall"]
    assert stored["root_cause"]["category"] == "Acme defect"


def test_a_spelling_of_two_terms_and_an_unknown_one_are_named(tmp_path, vocab):
    document = synthetic_case(2)
    document["symptoms"]["tags"] = ["acme-twice"]
    document["environment"]["components"] = ["acmesched2", "acmesched", "Acme Scheduler"]
    [path] = write_cases(tmp_path / "cases", [document])

    with pytest.raises(CaseImportError) as refused:
        import_case_files(paths=[path], vocab_paths=[vocab])

    assert [str(p) for p in refused.value.problems] == [
        f"{path}: $.symptoms.tags[0]: 'acme-twice' is a spelling of 2 symptom tag terms "
        "('Acme spin', 'Acme stall'); name one of them",
        f"{path}: $.environment.components[0]: unknown component 'acmesched2' (did you mean "
        "'Acme Scheduler'?); define it in a vocabulary file passed with manage.py import_cases --vocab",
        f"{path}: $.environment.components[2]: 'Acme Scheduler' names 'Acme Scheduler', as "
        "$.environment.components[1] does; name each term once",
    ]
