"""Which shared cache the app servers keep the store generation in, recorded in the database.

The store generation (incidents/store_cache.py) lives in the cache of the process that
reads it. A command run without the servers' `CACHE_URL` (its store cache off, or another
cache) used to write the store without the servers' cache ever learning of it: they served
their cached answers, Last-Modified included, until the values expired. So each server with
the store cache on records its cache here at start-up (`record_servers_cache`, one row), and
every write (`store_cache.changed`) also replaces the generation in the recorded cache when
it is not the writer's own (`servers_cache`). A writer that cannot reach it refuses the
write (`SharedCacheUnreachable`) rather than leave the servers serving the old data.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from django.conf import settings
from django.core.cache import CacheHandler, cache
from django.core.cache.backends.base import BaseCache
from django.db import DatabaseError

from incidentlib.health import OK, cache_status

logger = logging.getLogger("incidentlib.reliability")

# What names a cache: the same values here mean the same keys on the same server.
IDENTITY_KEYS = ("BACKEND", "LOCATION", "KEY_PREFIX", "VERSION", "OPTIONS")
_ROW = 1
_backends: dict[str, BaseCache] = {}


class SharedCacheUnreachable(RuntimeError):
    """The store generation could not be replaced in a shared cache: the write is refused."""


def cache_config(config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The parts of a `CACHES` entry (this process's default) that say which cache it is."""
    config = settings.CACHES["default"] if config is None else config
    return {key: config[key] for key in IDENTITY_KEYS if config.get(key) not in (None, "", {})}


def record_servers_cache() -> None:
    """At a server's start-up: record this process's cache as the servers' when its store
    cache is on and answers (one write). A database that cannot be written now is logged:
    the row a previous start wrote stays. Off, nothing is read or written (the module is
    imported with the WSGI and ASGI applications, before any test may use the database)."""
    from incidents.models import ServersCache

    if not settings.STORE_CACHE:
        return
    if cache_status(asking="recording the servers' cache") != OK:
        # Recorded, a cache nobody can reach would refuse every later write, from any process,
        # even after this server is stopped: the row a previous start wrote stays instead.
        logger.warning(
            "not recording this server's shared cache at %s: it did not answer; writes elsewhere "
            "will not reach it until it does and the server is restarted",
            describe(cache, settings.CACHES["default"]),
        )
        return
    try:
        ServersCache.objects.update_or_create(pk=_ROW, defaults={"config": cache_config()})
    except DatabaseError as exc:
        logger.warning("could not record the servers' shared cache: %s: %s", type(exc).__name__, exc)


def servers_cache() -> BaseCache | None:
    """The servers' recorded cache when a write here must replace the generation there too:
    it is not this process's own store cache (one query). None when none is recorded."""
    from incidents.models import ServersCache

    config = ServersCache.objects.filter(pk=_ROW).values_list("config", flat=True).first()
    if config is None or (settings.STORE_CACHE and config == cache_config()):
        return None
    key = repr(sorted(config.items()))
    if key not in _backends:
        _backends[key] = CacheHandler({"servers": config}).create_connection("servers")
    return _backends[key]


def describe(target: BaseCache, config: dict[str, Any] | None = None) -> str:
    """Where `target` is, for a message: its location, without a password."""
    location = getattr(target, "_servers", None) or (config or {}).get("LOCATION") or type(target).__name__
    text = ",".join(location) if isinstance(location, list) else str(location)
    return re.sub(r"//[^@/]*@", "//", text)


def unreachable(target: BaseCache, exc: Exception, *, own: bool) -> SharedCacheUnreachable:
    """The error refusing a write whose generation `target` could not take."""
    where = describe(target)
    whose = "this process's shared cache (CACHE_URL)" if own else "the servers' shared cache"
    return SharedCacheUnreachable(
        f"nothing was written: {whose} at {where} did not answer ({type(exc).__name__}: {exc}), so the "
        "servers could not learn of the change. Start that cache server, or set CACHE_URL to the "
        "servers' cache in .env (every command and server reads it) and run this again; the "
        "servers' cache is the one the last server started recorded, so restarting a server "
        "records its own."
    )
