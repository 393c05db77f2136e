"""Django's Redis cache backend, sharing its connection pools and clients in the process.

Django keeps its cache backends per context, and under ASGI every request runs in a
context of its own: each request built a new `RedisCache`, a new connection pool (a new TCP
connection to Redis) and, for every cache operation, a new `redis.Redis`, whose constructor
copies a table of about 200 response callbacks. Here the pools and their clients are kept
per process, keyed by server and options, so every request of a worker reuses them (a
`redis.Redis` is safe to share between threads: each command takes a connection from the
pool). `settings.CACHES` uses this backend wherever `CACHE_URL` names Redis.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

# (process id, server URL, pool options) -> (pool, client). The process id keeps a forked
# child from using its parent's sockets (uvicorn spawns its workers, but a fork is allowed).
_shared: dict[tuple[int, str, str], tuple[Any, Any]] = {}
_shared_lock = threading.Lock()


class SharedPoolRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Django's own private attribute, which django-stubs does not declare.
        options = self._pool_options  # type: ignore[attr-defined]
        self._options_key = repr(sorted(options.items(), key=lambda item: item[0]))

    def _get_connection_pool(self, write: bool) -> Any:
        return self._pool_and_client(write)[0]

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """The process's client of the connection pool `write` selects."""
        return self._pool_and_client(write)[1]

    def _pool_and_client(self, write: bool) -> tuple[Any, Any]:
        # Django's own private attributes and helpers, which django-stubs does not declare.
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        server = self._servers[index]  # type: ignore[attr-defined]
        key = (os.getpid(), server, self._options_key)
        found = _shared.get(key)
        if found is None:
            with _shared_lock:
                found = _shared.get(key)
                if found is None:
                    options = self._pool_options  # type: ignore[attr-defined]
                    pool = self._pool_class.from_url(server, **options)  # type: ignore[attr-defined]
                    found = _shared[key] = (pool, self._client(connection_pool=pool))  # type: ignore[attr-defined]
        return found


class SharedPoolRedisCache(RedisCache):
    """`django.core.cache.backends.redis.RedisCache` with `SharedPoolRedisCacheClient`."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolRedisCacheClient
