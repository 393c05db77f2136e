"""Which shared cache the app servers keep the store generation in, recorded in the database.

The store generation (incidents/store_cache.py) lives in the cache of the process that
reads it. A command run without the servers' `CACHE_URL` (its store cache off, or another
cache) used to write the store without the servers' cache ever learning of it: they served
their cached answers, Last-Modified included, until the values expired. So each server
records its cache here when it starts (`servers_started`, one row: incidentlib/server_start.py
says when), and every write (`store_cache.changed`) also replaces the generation in the
recorded cache when it is not the writer's own (`servers_cache`). A writer that cannot reach
it refuses the write (`SharedCacheUnreachable`) rather than leave the servers serving the
old data. A server started with the store cache off removes the row: nothing reads that
cache any more, and writers would keep telling it (or be refused once it is gone).

No credential is stored (the row is in every database dump and readable by anyone who can
read the database): the row holds the cache's identity (`incidents.cache_identity`: no user
name or password, in the URL or the options) and whether the servers' entry had any
(`needs_credentials`). A writer whose own cache is that one (same server, database, prefix:
identities compare equal, password or not) tells it with its own settings; another writer
reaches a recorded cache that needs no credential, and is refused for one that does, with a
message naming the cache without its password.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.cache import CacheHandler, cache
from django.core.cache.backends.base import BaseCache
from django.db import DatabaseError, transaction

from incidentlib.health import OK, cache_status
from incidents.cache_identity import bare_location, cache_identity

logger = logging.getLogger("incidentlib.reliability")

_ROW = 1
_backends: dict[str, BaseCache] = {}


class SharedCacheUnreachable(RuntimeError):
    """The store generation could not be replaced in a shared cache: the write is refused."""


def servers_started() -> None:
    """What a server does once when it starts (incidentlib/server_start.py): record its cache
    as the servers' (`record_servers_cache`) when its store cache is on, else remove the
    record (`forget_servers_cache`). Database errors are logged, never raised."""
    if settings.STORE_CACHE:
        record_servers_cache()
    else:
        forget_servers_cache()


def record_servers_cache() -> None:
    """Record this process's cache, without credentials, as the servers' when its store
    cache is on and answers (one write). A database that cannot be written now is logged:
    the row a previous start wrote stays. Off, nothing is read or written."""
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
    identity, needs_credentials = cache_identity(settings.CACHES["default"])
    try:
        with transaction.atomic():  # a failure leaves an enclosing transaction usable
            ServersCache.objects.update_or_create(
                pk=_ROW, defaults={"config": identity, "needs_credentials": needs_credentials}
            )
    except DatabaseError as exc:
        logger.warning("could not record the servers' shared cache: %s: %s", type(exc).__name__, exc)


def forget_servers_cache() -> None:
    """Remove the servers' recorded cache (a server started without the store cache: writes
    elsewhere have no cache to tell). A database that cannot be written now is logged."""
    from incidents.models import ServersCache

    try:
        with transaction.atomic():
            removed, _ = ServersCache.objects.filter(pk=_ROW).delete()
    except DatabaseError as exc:
        logger.warning("could not remove the servers' shared cache: %s: %s", type(exc).__name__, exc)
        return
    if removed:
        logger.info("removed the servers' recorded shared cache: this server runs without the store cache")


def servers_cache() -> BaseCache | None:
    """The servers' recorded cache when a write here must replace the generation there too:
    it is not this process's own store cache (one query). None when none is recorded.
    Raises `SharedCacheUnreachable` when it needs credentials and is not this process's
    cache (whose settings would hold them)."""
    from incidents.models import ServersCache

    row = ServersCache.objects.filter(pk=_ROW).values_list("config", "needs_credentials").first()
    if row is None:
        return None
    recorded, needs_credentials = row
    own = settings.CACHES["default"]
    if recorded == cache_identity(own)[0]:
        if settings.STORE_CACHE:
            return None
        config = own  # the servers' cache, with this process's credentials for it
    elif needs_credentials:
        raise lacking_credentials(recorded)
    else:
        config = recorded
    key = repr(sorted(config.items()))
    if key not in _backends:
        _backends[key] = CacheHandler({"servers": config}).create_connection("servers")
    return _backends[key]


def describe(target: BaseCache, config: dict[str, Any] | None = None) -> str:
    """Where `target` is, for a message: its location, without credentials."""
    location = getattr(target, "_servers", None) or (config or {}).get("LOCATION") or type(target).__name__
    text = ",".join(location) if isinstance(location, list) else str(location)
    return bare_location(text)


def lacking_credentials(recorded: dict[str, Any]) -> SharedCacheUnreachable:
    """The error refusing a write that must tell the servers' cache (`recorded`, its
    identity) when it needs credentials and this process's cache is another one."""
    where = bare_location(str(recorded.get("LOCATION") or recorded.get("BACKEND")))
    prefix = recorded.get("KEY_PREFIX")
    keys = f" (key prefix {prefix!r})" if prefix else ""
    return SharedCacheUnreachable(
        f"nothing was written: the servers' shared cache at {where}{keys} needs a password (or user "
        "name), which is not stored in the database, and this process's shared cache (CACHE_URL) is "
        "another one, so the servers could not learn of the change. Set CACHE_URL to the servers' "
        "cache, password included, in .env (every command and server reads it) and run this again."
    )


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
