"""GET /api/cases/{id}/similar: similar cases with score and reasons."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import similar_cases

from .conftest import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_it_lists_similar_cases_with_scores_and_reasons(client):
    response = client.get("/api/cases/IL-0428/similar?limit=3")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/{case_id}/similar")
    body = response.json()
    assert (body["case"], body["url"]) == ("IL-0428", "http://testserver/api/cases/IL-0428")
    case = Case.objects.with_summary().get(id="IL-0428")
    expected = similar_cases(case, limit=3, without_hand_linked=True)
    assert len(body["results"]) == len(expected) == 3
    for item, similar in zip(body["results"], expected, strict=True):
        assert item["id"] == similar.case.id
        assert item["score"] == similar.score
        assert item["shared_terms"] == similar.shared_terms
        assert item["score_parts"] == similar.score_parts
        assert item["url"] == f"http://testserver/api/cases/{similar.case.id}"
    scores = [item["score"] for item in body["results"]]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    assert "IL-0428" not in [item["id"] for item in body["results"]]


def test_limit_defaults_to_five_and_is_bounded(client):
    assert len(client.get("/api/cases/IL-0428/similar").json()["results"]) == 5
    [error] = client.get("/api/cases/IL-0428/similar?limit=21").json()["errors"]
    assert error == {"parameter": "limit", "detail": "must be between 1 and 20", "value": "21"}


def test_a_case_an_editor_linked_is_listed_under_related_not_again_under_similar(client):
    # IL-0428 links IL-0431 and IL-0433 by hand; IL-0433 is also its nearest computed neighbour.
    case = Case.objects.with_summary().get(id="IL-0428")
    assert [c for c in case.related_links.values_list("target_id", flat=True)] == ["IL-0431", "IL-0433"]
    assert similar_cases(case, limit=1)[0].case.id == "IL-0433"
    ids = [item["id"] for item in client.get("/api/cases/IL-0428/similar?limit=5").json()["results"]]
    assert len(ids) == 5 and not {"IL-0431", "IL-0433"} & set(ids)
