"""Where the API names its facets (descriptions, the vocabulary's keys), it names those of
the registry, so adding a facet cannot leave a stale list behind."""

from __future__ import annotations

import pytest

from api.serializers import VocabularySerializer
from incidents.models import VOCAB_FACETS
from incidents.selectors import FILTER_FACETS

from .conftest import openapi_schema

pytestmark = pytest.mark.django_db


def test_the_vocabulary_description_names_every_vocabulary_facet():
    description = openapi_schema()["paths"]["/api/vocab/"]["get"]["description"]
    assert f"({', '.join(VOCAB_FACETS)})" in description


def test_the_vocabulary_answer_has_one_key_per_vocabulary_facet(client):
    assert list(VocabularySerializer().fields) == list(VOCAB_FACETS)
    assert list(client.get("/api/vocab/").json()) == list(VOCAB_FACETS)


def test_the_facet_counts_description_names_every_facet_of_the_registry(client):
    facets = openapi_schema()["components"]["schemas"]["CaseList"]["properties"]["facets"]
    assert f"({', '.join(FILTER_FACETS)})" in facets["description"]
    assert list(client.get("/api/cases/").json()["facets"]) == list(FILTER_FACETS)
