"""Responses stay within the documented size bound: summaries in lists, never documents."""

from __future__ import annotations

import json

import pytest

from mcp_server.tools import MAX_LIST_RESPONSE_BYTES
from tests.mcp.test_match_log import LOG

DEFAULT_BOUND = 12_000

LARGEST = [
    ("search_incidents", {"query": "GPU", "limit": 25, "facets": True}),
    ("list_incidents", {"limit": 50, "facets": True}),
    ("similar_incidents", {"id": "IL-0444", "limit": 20}),
    ("match_log", {"text": LOG * 50, "limit": 20}),
    ("get_topic", {"slug": "interconnect", "latest": 20}),
]
DEFAULTS = [
    ("search_incidents", {"query": "GPU"}),
    ("list_incidents", {}),
    ("similar_incidents", {"id": "IL-0444"}),
    ("match_log", {"text": LOG}),
    ("get_topic", {"slug": "interconnect"}),
    ("vocab", {"facet": "component"}),
]


def size(result) -> int:
    return len(json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode())


@pytest.mark.parametrize(("name", "arguments"), LARGEST, ids=[n for n, _ in LARGEST])
def test_the_largest_limit_stays_under_the_bound(mcp, name, arguments):
    assert size(mcp.ok(name, **arguments)) < MAX_LIST_RESPONSE_BYTES


@pytest.mark.parametrize(("name", "arguments"), DEFAULTS, ids=[n for n, _ in DEFAULTS])
def test_default_limits_stay_small(mcp, name, arguments):
    assert size(mcp.ok(name, **arguments)) < DEFAULT_BOUND


def test_lists_hold_summaries_not_documents(mcp):
    listed = mcp.ok("list_incidents", limit=1)["incidents"][0]
    assert "summary" not in listed and "remediation" not in listed
    whole = mcp.ok("get_incident", id=listed["id"])
    assert size(listed) * 5 < size(whole)


def test_the_whole_vocabulary_fits_the_documented_size(mcp):
    # Seven vocabularies since organizations, accelerators and workloads joined (issue 13).
    # 34.4 KB with 30 accelerator models and 10 root causes (Dependency failure joined);
    # the tool's docstring says 34 KB, its budget is 36 KB.
    assert size(mcp.ok("vocab")) < 35_000
