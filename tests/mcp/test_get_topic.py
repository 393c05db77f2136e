"""get_topic: a topic's description, counts, frequent terms and latest cases."""

from __future__ import annotations

from incidents import selectors


def test_a_topic_overview_is_the_selectors(mcp):
    result = mcp.ok("get_topic", slug="training-instability", latest=2)
    overview = selectors.topic_overview("training-instability", latest=2)
    assert result["slug"] == "training-instability" and result["name"] == "Loss spikes and divergence"
    assert result["description"].startswith("The loss spikes, diverges")
    assert result["synonyms"] == ["numerics", "training stability", "loss explosion"]
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
    assert mcp.ok("get_topic", slug="Interconnect faults")["slug"] == "interconnect"
    assert mcp.ok("get_topic", slug="networking", latest=1)["slug"] == "interconnect"


def test_a_former_topic_points_to_its_workload(mcp):
    assert mcp.error("get_topic", slug="training") == (
        "'training' is a workload now, not a topic: call list_incidents with workload='training'; "
        "topics are kinds of failure (see vocab)."
    )


def test_an_unknown_topic_lists_the_topics(mcp):
    assert mcp.error("get_topic", slug="gpus") == (
        "Unknown topic 'gpus'. Valid values: checkpoint-storage (Checkpoint and storage failures), "
        "configuration (Configuration mistakes), facility (Facility and power events), gpu-errors "
        "(GPU errors), inference-outage (Inference serving outages), inference-quality (Inference "
        "quality regressions), interconnect (Interconnect faults), scheduler (Scheduler and orchestration "
        "failures), silent-data-corruption (Silent data corruption), software-regression (Software "
        "regressions), stragglers (Stragglers and throughput loss), training-hang (Training hangs), "
        "training-instability (Loss spikes and divergence). All 13 values: call vocab with facet='topic'."
    )


def test_a_misspelt_topic_names_the_nearest_topics_first(mcp):
    # A walkthrough's typo got the whole list and no suggestion, unlike the other tools.
    assert mcp.error("get_topic", slug="interconect") == (
        "Unknown topic 'interconect'. Nearest: interconnect (Interconnect faults). "
        "All 13 values: call vocab with facet='topic'."
    )
    # Checkpoint and storage failures is no longer named: letters in common, not a close
    # spelling (`spelling.closeness`).
    assert mcp.error("get_topic", slug="straglers") == (
        "Unknown topic 'straglers'. Nearest: stragglers (Stragglers and throughput loss). "
        "All 13 values: call vocab with facet='topic'."
    )


def test_an_unknown_topic_is_worded_as_the_topic_filter_words_it(mcp):
    # One problem (`TopicLookup.problem`), as the API's 404 and the page say it: get_topic and
    # the topic:// resource had words of their own, unlike list_incidents' `topic` filter.
    for slug in ("interconect", "gpus"):
        said = mcp.error("get_topic", slug=slug)
        assert said == mcp.error("list_incidents", topic=slug)
        assert mcp.read_error(f"topic://{slug}").message == said


def test_latest_out_of_range_is_refused(mcp):
    assert mcp.error("get_topic", slug="interconnect", latest=21) == (
        "Invalid arguments: latest must be between 1 and 20 (got 21)."
    )
