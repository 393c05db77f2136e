"""`topic=training` and `topic=inference` filter on the workload of that name (they were
topics until topics became kinds of failure). /topics/training, /api/topics/training and MCP
get_topic said "'training' is a workload now, not a topic"; a search or list filtering on
it answered the workload's cases with no word of it. Now every door's answer carries the
note (the search's notes): the page, GET /api/cases/, MCP search_incidents and
list_incidents."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.conftest import fixture_ids, load_fixture

pytestmark = pytest.mark.django_db

TRAINING = "'training' is a workload now, not a topic: filtered on the workload Training."


def published_by_workload() -> Counter:
    documents = (load_fixture(case_id) for case_id in fixture_ids())
    return Counter(d["environment"].get("workload") for d in documents if d["status"] == "published")


def test_the_api_list_says_it(client):
    answer = client.get("/api/cases/?topic=training&page_size=1").json()
    assert answer["count"] == published_by_workload()["training"] == 84
    assert answer["notes"] == [TRAINING]
    as_workload = client.get("/api/cases/?workload=training&page_size=1").json()
    assert as_workload["count"] == 84 and as_workload["notes"] == []
    # A search too, the note first; and an exclusion says what it left out.
    searched = client.get("/api/cases/?topic=Inference&q=NCCL").json()
    inference = "'Inference' is a workload now, not a topic: filtered on the workload Inference."
    assert searched["notes"][0] == inference
    excluded = client.get("/api/cases/?exclude_topic=training&page_size=1").json()
    assert excluded["notes"] == ["'training' is a workload now, not a topic: excluded the workload Training."]
    assert excluded["count"] == sum(published_by_workload().values()) - 84


def test_mcp_search_and_list_say_it(mcp):
    listed = mcp.ok("list_incidents", topic="training", limit=1)
    assert listed["total"] == 84 and listed["notes"] == [TRAINING]
    assert mcp.ok("list_incidents", workload="training", limit=1)["notes"] == []
    found = mcp.ok("search_incidents", query="NCCL timeout", topic="training", limit=1)
    assert found["notes"][0] == TRAINING
    # The words get_topic says, before where the cases are.
    assert mcp.error("get_topic", slug="training").startswith("'training' is a workload now, not a topic: ")


def test_the_page_says_it(client):
    html = client.get("/cases/?topic=training").content.decode()
    escaped = TRAINING.replace("'", "&#x27;")
    assert f'<p class="note">{escaped}</p>' in html


def test_the_topic_endpoint_says_it_in_the_same_words(client):
    detail = client.get("/api/topics/training").json()["detail"]
    assert detail.startswith("'training' is a workload now, not a topic: its cases are at ")
