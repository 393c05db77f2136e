"""A topic no term is gets one wording, from one place (`TopicLookup.problem`, the `topic`
filter's problem), each door in its format: the API's 404 says the sentence the page's 404
says, and names `slug` as `/api/cases/?topic=` names `topic`, with the nearest topics (or all
of them when none is near). A new user's walkthrough met six wordings: "No topic 'x';
/api/topics/ lists them. Closest: ...", "Nothing lives at /topics/x", MCP's "Unknown topic
'x'. Nearest: ... Valid topics: ...", topic://'s "No topic 'x'. Topics: ..." and the filter's
two. (MCP: tests/mcp/test_get_topic.py.)"""

from __future__ import annotations

import re
from html import unescape

import pytest

pytestmark = pytest.mark.django_db


def page_notice(client, slug: str) -> str:
    response = client.get(f"/topics/{slug}")
    assert response.status_code == 404
    [notice] = re.findall(r'<p class="notice">(.*?)</p>', response.content.decode())
    return unescape(notice)


def api_problem(client, slug: str) -> dict:
    response = client.get(f"/api/topics/{slug}")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    return response.json()


def test_a_misspelt_topic_is_told_alike_by_the_api_and_the_page_naming_the_nearest(client):
    body = api_problem(client, "interconect")
    assert (
        body["detail"]
        == page_notice(client, "interconect")
        == ("No topic called “interconect”. Did you mean Interconnect faults?")
    )
    assert body["errors"] == [
        {
            "parameter": "slug",
            "detail": "unknown topic 'interconect'",
            "value": "interconect",
            "suggestions": ["interconnect"],
        }
    ]


def test_the_api_404_names_the_topics_as_the_topic_filter_does(client):
    for slug in ("interconect", "gpus"):
        [as_path] = api_problem(client, slug)["errors"]
        [as_filter] = client.get("/api/cases/", {"topic": slug}).json()["errors"]
        assert {**as_path, "parameter": "topic"} == as_filter
    assert page_notice(client, "gpus").startswith(
        "No topic called “gpus”. Choose from Checkpoint and storage failures, Configuration mistakes, "
    )


def test_a_slug_too_long_for_a_topic_is_told_in_the_same_words(client):
    slug = "x" * 121
    assert api_problem(client, slug)["detail"] == f"No topic called “{slug}”."


def test_a_former_topic_is_told_it_is_a_workload_now_and_where_its_cases_are(client):
    # The API listed the topics ("No topic called “training”. Choose from ..."), while the
    # page redirects to the workload's page and MCP says it is a workload now
    # (tests/mcp/test_get_topic.py).
    body = api_problem(client, "training")
    assert body["detail"] == (
        "'training' is a workload now, not a topic: its cases are at "
        "http://testserver/api/cases/?workload=training."
    )
    assert body["errors"] == [
        {"parameter": "slug", "detail": "is a workload now, not a topic", "value": "training"}
    ]
    assert client.get("/api/cases/?workload=training").status_code == 200
    assert client.get("/topics/training")["Location"] == "/vocab/workload/training"
