"""A body value outside a field's choices is refused naming the choices, as MCP refuses it:
`POST /api/triage {"job": "gaming"}` said only `"gaming" is not a valid choice.`"""

from __future__ import annotations

import json

import pytest

from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db


def test_triage_names_the_kinds_of_job(client):
    response = client.post(
        "/api/triage", json.dumps({"job": "gaming", "symptoms": "hang"}), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameter": "job", "detail": 'must be one of training, inference (got "gaming")'}
    ]
    # The words of the MCP tool, which always named them.
    assert InMemoryMcp().error("triage", symptoms="hang", job="gaming") == (
        'Invalid arguments: job must be one of training, inference (got "gaming").'
    )


def test_a_long_value_is_shortened_where_it_is_quoted_back(client):
    response = client.post(
        "/api/triage", json.dumps({"job": "x" * 5000, "symptoms": "hang"}), content_type="application/json"
    )
    assert response.json()["errors"] == [
        {"parameter": "job", "detail": f'must be one of training, inference (got "{"x" * 39}…")'}
    ]
