"""Django's Redis cache backend, keeping one redis-py client per connection pool.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` for every cache
operation, and redis-py's constructor copies its table of about 200 response callbacks
each time: in process at 10,000 cases, the four cache reads of a kept case JSON answer spent
0.7 of its 1.7 ms constructing clients. A `redis.Redis` is safe to share between threads
(each command takes a connection from the pool), so one per pool serves the whole worker.
`settings.CACHES` uses this backend wherever `CACHE_URL` names Redis.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """The one client of the connection pool `write` selects (built on first use; two
        threads racing build two, and one is kept: harmless)."""
        # Django's own private helpers, which django-stubs does not declare.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class ReusedClientRedisCache(RedisCache):
    """`django.core.cache.backends.redis.RedisCache` with `ReusedClientRedisCacheClient`."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
