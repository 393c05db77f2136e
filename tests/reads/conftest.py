"""Fixtures for the read tests, which ask every door (pages, API, MCP) the same question."""

from __future__ import annotations

import pytest

from tests.mcp.conftest import InMemoryMcp


@pytest.fixture(scope="module")
def mcp(django_db_blocker) -> InMemoryMcp:
    """One in-memory MCP client for a whole test module: these tests only read the cases
    the session imported, so the server is built once, not for every test (the function-scoped
    `mcp` of tests/conftest.py)."""
    with django_db_blocker.unblock():
        return InMemoryMcp()
