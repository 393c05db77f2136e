"""Every answer is built by the serializer its OpenAPI schema names: what the serializer
does not declare never reaches a client, and a declared field the view did not gather is
an error, so the generated schema describes what runs."""

from __future__ import annotations

import pytest

from api import shapes
from api.serializers import CaseDetailSerializer, CaseSummarySerializer, TermSerializer

from .conftest import openapi_schema

pytestmark = pytest.mark.django_db


def test_a_value_no_serializer_declares_never_reaches_the_answer(client, monkeypatch):
    gathered = shapes.facet_counts
    monkeypatch.setattr(
        shapes,
        "facet_counts",
        lambda facets: {
            name: [{**count, "undeclared": 1} for count in counts]
            for name, counts in gathered(facets).items()
        },
    )
    answer = client.get("/api/cases/?symptom=nccl-timeout")
    assert answer.status_code == 200
    counts = [count for counts in answer.json()["facets"].values() for count in counts]
    assert counts and all(list(count) == ["value", "label", "count"] for count in counts)


def test_an_optional_field_left_out_stays_out_rather_than_null():
    values = {
        "slug": "nccl",
        "name": "NCCL",
        "description": "NVIDIA's collective library.",
        "synonyms": [],
        "case_count": 3,
        "cases_url": "http://testserver/api/cases/?component=nccl",
    }
    assert TermSerializer(values).data == values  # no `vendor: null`, no `family`


def test_a_declared_field_the_view_did_not_gather_is_an_error():
    with pytest.raises(KeyError):
        _ = CaseSummarySerializer({"id": "IL-0428"}).data


def test_the_case_detail_adds_exactly_the_fields_its_serializer_declares(client):
    # One declaration (`CaseDetailSerializer`) gives both the fields the answer adds to the
    # case document and their schema in the `CaseDetail` component.
    added = list(CaseDetailSerializer().fields)
    body = client.get("/api/cases/IL-0428").json()
    assert list(body)[-len(added) :] == added
    components = openapi_schema()["components"]["schemas"]
    detail, document = components["CaseDetail"], components["CaseDocument"]
    assert list(detail["properties"]) == [*document["properties"], *added]
    assert detail["required"] == [*document["required"], *added]
