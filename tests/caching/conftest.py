"""The store cache on, against each shared cache it runs on: Django's local-memory cache
(one process) and the Redis server at 127.0.0.1:6379 (as with `CACHE_URL=redis://...`).
Each test gets its own key prefix, so nothing cached by another test or run is read."""

from __future__ import annotations

import os
import uuid

import pytest

# TEST_REDIS_URL: another database of the server (e.g. when several checkouts test at once).
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

BACKENDS = {
    "locmem": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # As settings configure it for CACHE_URL=redis://...
    "redis": {"BACKEND": "incidentlib.redis_cache.SharedPoolRedisCache", "LOCATION": REDIS_URL},
}


@pytest.fixture(params=sorted(BACKENDS))
def store_cache_on(request, settings):
    """STORE_CACHE on, the default cache replaced by one of `BACKENDS`; yields its name.
    Afterwards the test's keys are deleted from Redis: the store generation keys never
    expire, and each run of the suite left a few behind in the shared server."""
    prefix = f"t{uuid.uuid4().hex}"
    settings.CACHES = {"default": {**BACKENDS[request.param], "KEY_PREFIX": prefix}}
    settings.STORE_CACHE = True
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api": None, "api-heavy": None},
    }
    yield request.param
    if request.param == "redis":
        _delete_keys(prefix)


def _delete_keys(prefix: str) -> None:
    """Delete every key Django's cache wrote under `prefix` (`<prefix>:<version>:<key>`)."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
