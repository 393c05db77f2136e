"""Every case a tool names carries its web page and its JSON URL, and every result that lists
cases comes with one `resource_link` block per case, to its `incident://` resource (issue
16.3)."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.mcp.scenarios import SCENARIOS

CALLS = [
    ("triage", {"symptoms": SCENARIOS[0].symptoms, "text": SCENARIOS[0].log}, ["cases"]),
    ("search_incidents", {"query": "nccl timeout", "limit": 5}, ["hits"]),
    ("list_incidents", {"topic": "training-hang", "limit": 5}, ["incidents"]),
    ("get_topic", {"slug": "training-hang", "latest": 3}, ["latest_cases"]),
    ("similar_incidents", {"id": "IL-0430", "limit": 3}, ["similar", "related"]),
    ("match_log", {"text": SCENARIOS[1].log, "limit": 3}, ["hits"]),
    ("get_incident", {"id": "IL-0428", "fields": ["title"]}, []),
]


@pytest.mark.parametrize(("name", "arguments", "lists"), CALLS, ids=[c[0] for c in CALLS])
def test_each_case_has_its_links_and_a_resource_link(mcp, name, arguments, lists):
    result = mcp.call(name, **arguments)
    assert not result.is_error, result.content[0].text
    structured = result.structured_content
    cases = [entry for key in lists for entry in structured[key]] if lists else [structured]
    assert cases, name
    for case in cases:
        assert case["url"] == f"{settings.SITE_URL}/api/cases/{case['id']}", name
        assert case["html_url"] == f"{settings.SITE_URL}/cases/{case['id']}", name
    listed = list(dict.fromkeys(c["id"] for key in lists[:1] for c in structured[key])) or [structured["id"]]
    links = [block for block in result.content[1:] if block.type == "resource_link"]
    assert [str(link.uri) for link in links] == [f"incident://{case_id}" for case_id in listed], name
    assert all(link.mime_type == "text/markdown" and link.name for link in links), name
