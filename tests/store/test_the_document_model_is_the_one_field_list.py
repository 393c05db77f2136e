"""The case document's fields are listed once: `case.schema.json`, each field bound to its
storage in `incidents.document_model`. A field added to a temporary copy of the model
reaches import, export, the API detail, MCP `get_incident`, the Markdown resource and the
search index without any other change."""

from __future__ import annotations

import copy
import dataclasses

import pydantic
import pytest

from incidents import document_model
from incidents.case_schema import schema_fields
from incidents.document_model import BINDINGS, CaseModel, ModelMismatch, case_model, column
from incidents.exporting import iter_documents
from incidents.models import Case
from incidents.problems import CaseImportError
from incidents.search import search_cases
from incidents.search.text import index_columns
from mcp_server import field_names, resources, tools
from tests.factories import synthetic_case

WORD = "Quokkaland"  # in no case of the library


def model_with_location() -> CaseModel:
    """The model with a new fact, `facts.location`, in place of `facts.region`: kept in the
    `region` column (a new field needs a column; this one frees its own), indexed with the
    rest of the text and read as "Whereabouts"."""
    schema = copy.deepcopy(case_model().schema)
    facts = schema["properties"]["facts"]["properties"]
    del facts["region"]
    facts["location"] = {"type": ["string", "null"], "description": "Where it happened."}
    bindings = tuple(
        column("facts.location", "region", index="rest", label="Whereabouts")
        if binding.path == "facts.region"
        else binding
        for binding in BINDINGS
    )
    return CaseModel(schema, bindings)


@pytest.fixture
def located(db, monkeypatch, import_synthetic) -> Case:
    monkeypatch.setattr(document_model, "_current", model_with_location())
    document = synthetic_case(71)
    document["facts"] = {**{k: v for k, v in document["facts"].items() if k != "region"}, "location": WORD}
    (case_id,) = import_synthetic(document)
    return Case.objects.with_document().get(id=case_id)


def test_import_writes_the_new_field_and_refuses_the_old_one(located, import_synthetic):
    assert located.region == WORD
    old = synthetic_case(72)
    old["facts"]["region"] = "EU"
    with pytest.raises(CaseImportError, match="region"):
        import_synthetic(old)


def test_export_writes_the_new_field_in_schema_order(located):
    (document,) = iter_documents(Case.objects.filter(id=located.id))
    assert list(document["facts"]) == [
        "severity",
        "scope",
        "users_affected",
        "time_to_detect",
        "time_to_resolve",
        "location",
    ]
    assert document["facts"]["location"] == WORD


def test_the_api_detail_serves_the_new_field(located, client):
    answer = client.get(f"/api/cases/{located.id}")
    assert answer.status_code == 200
    assert answer.json()["facts"]["location"] == WORD
    assert "region" not in answer.json()["facts"]


def test_get_incident_serves_the_new_field(located):
    # The tool's function itself: the in-memory client reads from another thread, which
    # cannot see this test's uncommitted import on SQLite.
    document = tools.get_incident(id=located.id, fields=["facts"]).model_dump()
    assert document["facts"]["location"] == WORD


def test_the_markdown_resource_names_the_new_field(located):
    text = resources.read_incident(located.id)
    facts = text.split("## Facts\n\n", 1)[1].split("\n\n", 1)[0]
    assert facts.splitlines()[-1] == f"- Whereabouts: {WORD}"
    assert "Region" not in text


def test_the_index_holds_the_new_field_where_the_model_puts_it(located):
    assert WORD in index_columns(located).rest
    hits = search_cases(query=WORD, facets=False).hits
    assert [hit.case.id for hit in hits] == [located.id]


def test_the_model_refuses_a_schema_field_without_a_binding_and_the_reverse():
    schema = copy.deepcopy(case_model().schema)
    schema["properties"]["facts"]["properties"]["location"] = {"type": ["string", "null"]}
    with pytest.raises(ModelMismatch, match=r"fields without a binding \['facts.location'\]"):
        CaseModel(schema)
    extra = (*BINDINGS, dataclasses.replace(BINDINGS[0], path="headline"))
    with pytest.raises(ModelMismatch, match=r"bindings without a field \['headline'\]"):
        CaseModel(case_model().schema, extra)


def test_every_binding_is_a_schema_field_in_the_real_model():
    assert {b.path for b in BINDINGS} == {f.path for f in schema_fields(case_model().standalone_schema)}


def test_get_incident_offers_the_model_fields():
    offered = pydantic.TypeAdapter(field_names.FieldNames).json_schema()["items"]["enum"]
    assert tuple(offered) == tuple(case_model().top_level)
