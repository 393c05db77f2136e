"""The errors a shared cache server raises when it cannot be reached (Redis down, refused,
timing out): what a read may degrade on (computing without the cache) and what the site
answers with a 503 rather than a 500."""

from __future__ import annotations

try:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    CACHE_ERRORS: tuple[type[Exception], ...] = (RedisConnectionError, RedisTimeoutError)
except ImportError:  # the redis package is optional without CACHE_URL=redis://
    CACHE_ERRORS = ()
