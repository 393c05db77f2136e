"""Accelerators and organizations are vocabularies like the others (issue 13, point 4).

Every expected set of cases is computed from the fixture documents and `fixtures/vocab.json`
read as files, never from the database: a case's `environment.accelerator` string names a
term by its name, slug or a synonym (any letter case), and a model belongs to its family.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.utils.text import slugify

from incidents.models import Case, Facet, Term
from incidents.problems import CaseImportError
from incidents.selectors.spelling import spelling_key
from incidents.services import import_case_files
from tests.api.fixture_facts import published_documents
from tests.conftest import VOCAB_FILE
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

VOCAB = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))


def _by_spelling(key: str) -> dict[str, dict]:
    table = {}
    for entry in VOCAB[key]:
        for spelling in (
            entry.get("slug") or slugify(entry["name"]),
            entry["name"],
            *entry.get("synonyms", []),
        ):
            table[spelling_key(spelling)] = entry
    return table


ACCELERATORS = _by_spelling("accelerators")
ORGANIZATIONS = _by_spelling("organizations")


def term_of(document: dict) -> dict | None:
    """The vocabulary entry a document's accelerator names, read from the vocabulary file."""
    spelled = (document.get("environment") or {}).get("accelerator")
    return None if spelled is None else ACCELERATORS[spelling_key(spelled)]


def organization_of(document: dict) -> str:
    """The canonical organization a document's `organization` names."""
    return ORGANIZATIONS[spelling_key(document["organization"])]["name"]


def accelerator_names(document: dict) -> list[str]:
    """The accelerator terms a document's case is linked to: its model and the family."""
    entry = term_of(document)
    if entry is None:
        return []
    return [entry["name"], *([entry["family"]] if entry.get("family") else [])]


def family_of(document: dict) -> str | None:
    """The family name of a document's accelerator."""
    entry = term_of(document)
    return None if entry is None else entry.get("family") or entry["name"]


def api_ids(client, query: str) -> list[str]:
    body = client.get(f"/api/cases/?{query}&page_size=100&sort=oldest").json()
    ids = [hit["id"] for hit in body["results"]]
    assert body["count"] == len(ids), body  # one page holds them all
    return sorted(ids)


def test_every_fixture_accelerator_and_organization_is_in_the_vocabulary():
    for document in published_documents():
        assert spelling_key(document["organization"]) in ORGANIZATIONS, document["id"]
        spelled = (document.get("environment") or {}).get("accelerator")
        assert spelled is None or spelling_key(spelled) in ACCELERATORS, document["id"]


@pytest.mark.parametrize("spelling", ["a100", "A100", "NVIDIA A100", "nvidia-a100"])
def test_a_family_filter_finds_the_cases_of_every_model(client, spelling):
    expected = sorted(d["id"] for d in published_documents() if family_of(d) == "A100")
    models = {d["environment"]["accelerator"] for d in published_documents() if family_of(d) == "A100"}
    assert len(models) >= 3  # "NVIDIA A100", "NVIDIA A100 40GB", "NVIDIA A100 80GB" at least
    assert api_ids(client, f"accelerator={spelling}") == expected


def test_each_family_finds_what_the_documents_say():
    from incidents.selectors import filter_cases, parse_filters

    families = Counter(family_of(d) for d in published_documents() if family_of(d))
    assert len(families) >= 5
    for family, n in families.items():
        filters, problems = parse_filters({"accelerator": family})
        assert not problems
        assert filter_cases(Case.objects.published(), filters).count() == n, family


def test_a_model_filter_finds_only_that_model(client):
    expected = sorted(d["id"] for d in published_documents() if (term_of(d) or {}).get("name") == "A100 80GB")
    assert expected
    assert api_ids(client, "accelerator=NVIDIA A100 SXM 80GB") == expected
    assert api_ids(client, "accelerator=a100-80gb") == expected


def test_an_organization_alias_finds_the_canonical_organization(client):
    expected = sorted(d["id"] for d in published_documents() if d["organization"] == "Meta")
    assert expected
    for alias in ("meta", "Meta AI", "FAIR", "Facebook"):
        assert api_ids(client, f"organization={alias}") == expected, alias


def test_import_resolves_aliases_and_keeps_the_document_as_written(client, tmp_path):
    document = synthetic_case(
        1,
        organization="Meta AI",
        environment={**synthetic_case(1)["environment"], "accelerator": "A100-SXM4-80GB"},
    )
    import_case_files(paths=write_cases(tmp_path, [document]))
    case = Case.objects.with_summary().get(id=document["id"])
    assert [t.name for t in case.terms_of(Facet.ORGANIZATION)] == ["Meta"]
    assert [t.name for t in case.terms_of(Facet.ACCELERATOR)] == ["A100 80GB", "A100"]
    stored = client.get(f"/api/cases/{document['id']}").json()
    assert stored["organization"] == "Meta AI"
    assert stored["environment"]["accelerator"] == "A100-SXM4-80GB"


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("accelerator", "NVIDIA A1000", "$.environment.accelerator"),
        ("organization", "Meta Superintelligence", "$.organization"),
    ],
)
def test_import_names_file_and_path_of_an_unknown_name(tmp_path, field, value, path):
    document = synthetic_case(2)
    if field == "accelerator":
        document["environment"]["accelerator"] = value
    else:
        document["organization"] = value
    [file] = write_cases(tmp_path, [document])
    with pytest.raises(CaseImportError) as raised:
        import_case_files(paths=[file])
    [problem] = raised.value.problems
    assert (problem.file, problem.path) == (str(file), path)
    assert problem.message.startswith(f"unknown {field} {value!r}")
    assert "vocabulary file" in problem.message
    assert not Case.objects.filter(id=document["id"]).exists()


def test_a_spelling_of_two_terms_is_refused_in_a_vocabulary_file(tmp_path):
    vocab = tmp_path / "vocab.json"
    vocab.write_text(
        json.dumps(
            {
                "accelerators": [
                    {"name": "X1", "vendor": "V", "description": "d", "synonyms": ["Chip"]},
                    {"name": "X2", "vendor": "V", "description": "d", "synonyms": ["chip"], "family": "X9"},
                ]
            }
        )
    )
    with pytest.raises(CaseImportError) as raised:
        import_case_files(paths=[], vocab_paths=[vocab])
    messages = {(p.path, p.message) for p in raised.value.problems}
    assert (
        "$.accelerators[1]",
        "spelling 'chip' also names 'X1' (at $.accelerators[0]); a case naming it would be ambiguous",
    ) in messages
    assert ("$.accelerators[1].family", "no accelerator named 'X9' in this file") in messages


def test_models_know_their_family_and_vendor():
    for entry in VOCAB["accelerators"]:
        term = Term.objects.get(facet=Facet.ACCELERATOR, name=entry["name"])
        assert term.vendor == entry["vendor"]
        assert (term.family.name if term.family else None) == entry.get("family")
