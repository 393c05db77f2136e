"""get_incident and GET /api/cases/{id} serve the same document, field for field."""

from __future__ import annotations

from django.conf import settings
from mcp import Client

from tests.conftest import fixture_ids


def test_every_case_agrees_field_for_field(mcp, client):
    async def documents(session: Client) -> dict[str, dict]:
        return {
            case_id: (await session.call_tool("get_incident", {"id": case_id})).structured_content
            for case_id in fixture_ids()
        }

    for case_id, from_tool in mcp.run(documents).items():
        response = client.get(f"/api/cases/{case_id}")
        assert response.status_code == 200, case_id
        from_api = response.json()
        # The API adds links (url, html_url, ...); every document field is in both, equal.
        assert from_tool["id"] == case_id
        assert set(from_tool) <= set(from_api), case_id
        for field, value in from_tool.items():
            if field in ("url", "html_url"):  # absolute: the API's from the request's host
                assert from_api[field].endswith(value.removeprefix(settings.SITE_URL)), (case_id, field)
            else:
                assert from_api[field] == value, (case_id, field)
        assert list(from_tool) == [k for k in from_api if k in from_tool]
