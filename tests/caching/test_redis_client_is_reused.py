"""The Redis cache keeps one client per connection pool (`incidentlib/redis_cache.py`):
Django's backend built a new `redis.Redis` for every cache operation."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from django.core.cache.backends.redis import RedisCache

from incidentlib.redis_cache import ReusedClientRedisCache
from tests.caching.conftest import REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def _cache() -> Any:  # Any: the tests read the backend's private client (`_cache`)
    return ReusedClientRedisCache(REDIS_URL, {"KEY_PREFIX": f"t{uuid.uuid4().hex}"})


def test_every_operation_uses_the_same_client_of_its_pool():
    cache = _cache()
    cache.set("a", 1)
    first = cache._cache.get_client(write=True)
    assert cache.get("a") == 1
    assert cache._cache.get_client() is first  # one server: reads use the write pool
    assert len(cache._cache._clients) == 1
    # Django's own backend builds a new client each time (what this backend avoids).
    django_cache: Any = RedisCache(REDIS_URL, {})
    assert django_cache._cache.get_client() is not django_cache._cache.get_client()


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
    assert len(cache._cache._clients) == 1


def test_settings_use_it_for_a_redis_cache_url():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'incidentlib.settings'; "
        "django.setup(); from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    )
    environment = {**os.environ, "CACHE_URL": REDIS_URL}
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "incidentlib.redis_cache.ReusedClientRedisCache"
