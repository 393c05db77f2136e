"""A case in a list has one shape (`incidents.selectors.summaries`): the API serves it whole,
MCP a subset of its fields with the same values, never a field of its own besides links."""

from __future__ import annotations

import pytest

from incidents.models import Case
from mcp_server.outputs import CaseSummary
from mcp_server.shaping import SUMMARY_KEYS, summary_fields

pytestmark = pytest.mark.django_db

LINKS = {"url", "html_url"}


def test_mcp_keeps_a_subset_of_the_api_summary_with_the_same_values(client):
    api = {hit["id"]: hit for hit in client.get("/api/cases/", {"page_size": 50}).json()["results"]}
    assert len(api) >= 20
    cases = Case.objects.with_summary().filter(id__in=api)
    for case in cases:
        mcp = summary_fields(case)
        assert set(mcp) == set(CaseSummary.model_fields)
        assert set(mcp) <= set(api[case.id])  # MCP drops fields, never invents one
        assert {key: mcp[key] for key in SUMMARY_KEYS} == {key: api[case.id][key] for key in SUMMARY_KEYS}
        assert mcp["html_url"].endswith(f"/cases/{case.id}") and api[case.id]["html_url"].endswith(
            f"/cases/{case.id}"
        )
    assert set(SUMMARY_KEYS) | LINKS == set(CaseSummary.model_fields)
    assert "components" in next(iter(api.values())) and "components" not in SUMMARY_KEYS
