"""similar_incidents: computed neighbours with their reasons, hand-linked cases apart."""

from __future__ import annotations

from django.conf import settings

from incidents import search, selectors


def test_neighbours_come_with_scores_and_shared_terms(mcp):
    result = mcp.ok("similar_incidents", id="IL-0430", limit=3)
    case = selectors.case_by_id("IL-0430")
    assert case is not None
    expected = search.similar_cases(case, limit=3, without_hand_linked=True)
    assert result["id"] == "IL-0430"
    assert result["title"].startswith("OPT-175B on 1,024 A100s")
    assert [s["id"] for s in result["similar"]] == [s.case.id for s in expected]
    first, reference = result["similar"][0], expected[0]
    assert first["score"] == round(reference.score, 4)
    assert 0 < first["score"] <= 1
    assert first["shared_terms"] == reference.shared_terms
    assert first["shared_terms"]  # the reasons are never empty
    # The reasons in words and the label the case page and the API show; the raw parts of
    # the score (the API's `score_parts`) are no reason an assistant can pass on.
    assert "score_parts" not in first
    assert first["similarity"] == reference.label
    assert first["reasons"] == list(reference.reasons)
    assert first["reasons"][0].startswith("Both: ")


def test_hand_linked_cases_are_kept_apart(mcp):
    result = mcp.ok("similar_incidents", id="il-0430", limit=1)
    assert [r["id"] for r in result["related"]] == ["IL-0429", "IL-0435", "IL-0436"]
    assert result["related"][0]["html_url"] == f"{settings.SITE_URL}/cases/IL-0429"
    assert result["related"][0]["url"] == f"{settings.SITE_URL}/api/cases/IL-0429"
    assert len(result["similar"]) == 1


def test_an_unknown_id_and_a_bad_limit_are_refused(mcp):
    assert mcp.error("similar_incidents", id="IL-9999").startswith("No incident 'IL-9999'. Closest ids: ")
    assert mcp.error("similar_incidents", id="IL-0430", limit=21) == (
        "Invalid arguments: limit must be between 1 and 20 (got 21)."
    )


def test_a_hand_linked_neighbour_is_not_repeated_under_similar(mcp):
    # IL-0433 is both IL-0428's nearest computed neighbour and one of its hand-made links.
    result = mcp.ok("similar_incidents", id="IL-0428", limit=3)
    assert [r["id"] for r in result["related"]] == ["IL-0431", "IL-0433"]
    similar = [r["id"] for r in result["similar"]]
    assert len(similar) == 3 and "IL-0433" not in similar and "IL-0431" not in similar
