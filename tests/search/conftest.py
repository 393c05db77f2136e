"""Helpers for the search tests: synthetic cases, imported next to the real ones with the
`import_synthetic` fixture of tests/conftest.py."""

from __future__ import annotations

import uuid

import pytest

from tests.factories import synthetic_case

__all__ = ["synthetic_case"]


@pytest.fixture
def store_cache_on(settings):
    """The store cache on (`incidents.store_cache`), in a cache of this test's own."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "KEY_PREFIX": f"t{uuid.uuid4().hex}",
        }
    }
    settings.STORE_CACHE = True
