"""Reads from read replicas, writes to the primary (`DATABASE_REPLICA_URLS`), and the
database cache in its own SQLite file.

Settings add one database alias per replica URL (`replica1`, `replica2`, ...), on SQLite
the `cache` alias (incidentlib/cache_database.py), and this router when there is at least
one of them (docs/scaling.md says when replicas are worth taking).

- Writes, migrations and every read inside a transaction go to `default` (the primary):
  the write services read what they are about to change, and a replica may lag.
- After a write, the rest of the same request (or management command) reads the primary
  too, so a client never misses its own write (`request_started` forgets it).
- `primary_reads()` pins reads to the primary for a block: `store_cache` computes what it
  caches there, so a lagging replica never files an old value under a new store generation.
- The database cache's table (`dbcache://`: throttle counts, the store generation) is read
  and written in the `cache` alias when there is one (its own SQLite file, so that its
  writes never wait for the case file's write lock), else on the primary; its writes do not
  count as the request's writes, and only it is created there.
- Other reads go to a replica chosen at random per query.
"""

from __future__ import annotations

import contextlib
import contextvars
import random
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.signals import request_started
from django.db import connections

from incidentlib.cache_database import CACHE_ALIAS

PRIMARY = "default"
REPLICA_PREFIX = "replica"
CACHE_APP = "django_cache"  # app label of the database cache's model

_wrote: contextvars.ContextVar[bool] = contextvars.ContextVar("wrote_to_primary", default=False)
_pinned: contextvars.ContextVar[int] = contextvars.ContextVar("primary_reads", default=0)


def cache_alias() -> str:
    """Where the database cache's table lives: its own file when configured, else the primary."""
    return CACHE_ALIAS if CACHE_ALIAS in settings.DATABASES else PRIMARY


def replica_aliases() -> list[str]:
    """The configured replica aliases, in order."""
    return sorted(alias for alias in settings.DATABASES if alias.startswith(REPLICA_PREFIX))


@contextlib.contextmanager
def primary_reads() -> Iterator[None]:
    """Within the block, every read goes to the primary."""
    token = _pinned.set(_pinned.get() + 1)
    try:
        yield
    finally:
        _pinned.reset(token)


def _forget_writes(**kwargs: Any) -> None:
    _wrote.set(False)


request_started.connect(_forget_writes, dispatch_uid="incidentlib.db_router.forget_writes")


class ReplicaRouter:
    """Django database router: see the module docstring."""

    def db_for_read(self, model: Any, **hints: Any) -> str:
        if model._meta.app_label == CACHE_APP:
            return cache_alias()
        replicas = replica_aliases()
        primary_only = _wrote.get() or _pinned.get() or connections[PRIMARY].in_atomic_block
        if not replicas or primary_only:
            return PRIMARY
        return random.choice(replicas)

    def db_for_write(self, model: Any, **hints: Any) -> str:
        if model._meta.app_label == CACHE_APP:
            return cache_alias()
        _wrote.set(True)
        return PRIMARY

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        # Every alias holds the same data (replicas are copies of the primary).
        return True

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        # Replicas receive the schema by replication, never by `migrate`; the cache's own
        # file holds the cache table only (what `createcachetable` asks about), and then
        # the primary does not.
        if app_label == CACHE_APP:
            return db == cache_alias()
        return db == PRIMARY
