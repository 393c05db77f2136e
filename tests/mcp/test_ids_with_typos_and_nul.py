"""Case ids with one wrong, missing or extra digit, or a NUL byte, get "No incident ..." with
the closest ids (the read layer's `find_case`), on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("IL-9428", ["IL-0428"]),
        ("IL-428", None),
        # Three ids are likely typos of it and all exist: IL-0428 plus a 0, IL-0480 plus a 2,
        # and IL-0482 (the same digits in another order); a last digit too many is the likeliest.
        ("IL-04280", ["IL-0428", "IL-0480", "IL-0482"]),
    ],
)
def test_one_digit_off_names_the_meant_id_first(mcp, typed, meant):
    if meant is None:  # a missing leading zero is the same number: it resolves
        assert mcp.ok("get_incident", id=typed, fields=["id"])["id"] == "IL-0428"
        return
    message = mcp.error("get_incident", id=typed)
    prefix = f"No incident {typed!r}. Closest ids: "
    assert message.startswith(prefix)
    assert message[len(prefix) :].split(". ")[0].split(", ")[: len(meant)] == meant


@pytest.mark.parametrize("tool", ["get_incident", "similar_incidents"])
def test_a_nul_in_an_id_is_no_incident_with_the_closest_ids(mcp, tool):
    message = mcp.error(tool, id="IL-0428\x00")
    assert message.startswith("No incident 'IL-0428\\x00'. Closest ids: IL-0428")


def test_a_nul_in_a_topic_lists_the_topics(mcp):
    message = mcp.error("get_topic", slug="training\x00")
    # No topic is spelt close to it (Training hangs was named for the letters in common,
    # `spelling.closeness`): the 13 topics are listed, as for any unknown topic.
    assert message.startswith(
        "Unknown topic 'training\\x00'. Valid values: checkpoint-storage (Checkpoint and storage failures), "
    )
    assert message.endswith(
        "training-hang (Training hangs), training-instability (Loss spikes and divergence)."
        " All 13 values: call vocab with facet='topic'."
    )
