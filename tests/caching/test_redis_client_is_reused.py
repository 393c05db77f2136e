"""The Redis cache shares its connection pool and client in the process
(`incidentlib/redis_cache.py`): under ASGI every request gets its own cache backend (Django
keeps them per context), and Django's backend built a new pool per backend and a new
`redis.Redis` for every cache operation."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from incidentlib.redis_cache import SharedPoolRedisCache
from tests.caching.conftest import REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def _cache() -> Any:  # Any: the tests read the backend's private client (`_cache`)
    return SharedPoolRedisCache(REDIS_URL, {"KEY_PREFIX": f"t{uuid.uuid4().hex}"})


def test_every_backend_and_operation_uses_the_process_client():
    cache, another = _cache(), _cache()  # as two requests' contexts would build them
    cache.set("a", 1)
    first = cache._cache.get_client(write=True)
    assert cache.get("a") == 1
    assert cache._cache.get_client() is first  # one server: reads use the write pool
    assert another._cache.get_client() is first
    assert another._cache._get_connection_pool(False) is first.connection_pool
    # Django's own backend builds a new client each time and a pool per backend.
    django_cache: Any = RedisCache(REDIS_URL, {})
    assert django_cache._cache.get_client() is not django_cache._cache.get_client()
    other_django: Any = RedisCache(REDIS_URL, {})
    assert other_django._cache._get_connection_pool(False) is not django_cache._cache._get_connection_pool(
        False
    )


def test_requests_in_their_own_contexts_share_the_client(settings):
    settings.CACHES = {
        "default": {"BACKEND": "incidentlib.redis_cache.SharedPoolRedisCache", "LOCATION": REDIS_URL}
    }

    def client_of_this_context() -> Any:
        backend: Any = caches["default"]
        return backend, backend._cache.get_client()

    async def two_requests() -> list[Any]:
        # Each task runs in a context of its own, as Django's ASGI handler runs each request.
        return list(
            await asyncio.gather(
                sync_to_async(client_of_this_context)(), sync_to_async(client_of_this_context)()
            )
        )

    (first_backend, first_client), (second_backend, second_client) = asyncio.run(two_requests())
    assert first_backend is not second_backend  # Django's per-context backends
    assert first_client is second_client


def test_threads_share_the_client_and_each_gets_its_own_values():
    cache = _cache()
    errors: list[str] = []

    def work(n: int) -> None:
        for i in range(50):
            cache.set(f"k{n}-{i}", (n, i))
            if cache.get(f"k{n}-{i}") != (n, i):
                errors.append(f"thread {n} read another value at {i}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert cache.get_many([f"k{n}-49" for n in range(8)]) == {f"k{n}-49": (n, 49) for n in range(8)}


def test_settings_use_it_for_a_redis_cache_url():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'incidentlib.settings'; "
        "django.setup(); from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    )
    environment = {**os.environ, "CACHE_URL": REDIS_URL}
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "incidentlib.redis_cache.SharedPoolRedisCache"
