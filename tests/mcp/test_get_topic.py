"""get_topic: a topic's description, counts, frequent terms and latest cases."""

from __future__ import annotations

from incidents import selectors


def test_a_topic_overview_is_the_selectors(mcp):
    result = mcp.ok("get_topic", slug="numerics", latest=2)
    overview = selectors.topic_overview("numerics", latest=2)
    assert result["slug"] == "numerics" and result["name"] == "Numerics"
    assert result["description"].startswith("Failures in the numbers a model computes")
    assert result["synonyms"] == ["numerical stability", "training stability"]
    assert result["case_count"] == overview.case_count >= 6
    assert [(t["name"], t["count"]) for t in result["top_root_causes"]] == [
        (term.name, n) for term, n in overview.top_root_causes
    ]
    assert [(t["slug"], t["count"]) for t in result["top_symptoms"]] == [
        (term.slug, n) for term, n in overview.top_symptoms
    ]
    assert [(t["slug"], t["count"]) for t in result["top_components"]] == [
        (term.slug, n) for term, n in overview.top_components
    ]
    assert [c["id"] for c in result["latest_cases"]] == [c.id for c in overview.latest_cases]
    assert len(result["latest_cases"]) == 2


def test_a_topic_is_found_by_name_or_synonym(mcp):
    assert mcp.ok("get_topic", slug="Training")["slug"] == "training"
    assert mcp.ok("get_topic", slug="fabric", latest=1)["slug"] == "networking"


def test_an_unknown_topic_lists_the_topics(mcp):
    assert mcp.error("get_topic", slug="gpus") == (
        "Unknown topic 'gpus'. Valid topics: ai-infra (AI infrastructure), hardware (Hardware), "
        "inference (Inference), networking (Networking), numerics (Numerics), reliability "
        "(Reliability), scheduling (Scheduling), storage (Storage), training (Training)."
    )


def test_latest_out_of_range_is_refused(mcp):
    assert mcp.error("get_topic", slug="training", latest=21) == (
        "Invalid arguments: latest must be between 1 and 20 (got 21)."
    )
