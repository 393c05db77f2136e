"""Caching of reads that every request repeats and only a write to the store changes.

The store version (newest modification, case count, vocabulary digest) and the vocabulary
with case counts were computed on every request: an aggregate over every case and a
grouped count over every term link, both growing with the number of cases. They are kept
in Django's cache (`settings.CACHES["default"]`: the database cache by default, Redis when
`CACHE_URL=redis://...`, shared by every worker and server) under a key that carries the
store *generation*, a token that every write service replaces (`changed()`).

Why a generation and not deleting keys: one write makes every cached read stale at once,
whatever keys exist, and a cache that loses the token (eviction, a Redis restart) only
starts a new generation. A write replaces the token twice: at once (so the writing
request, and tests inside one transaction, read fresh values) and after its transaction
commits (so a value another process computed from the not yet committed data, under the
first new token, is never read again). Readers take the token *before* reading the
database, so a value is never filed under a newer token than the data it was read from.

A connection that has written the store in its open transaction (a `changed()` not yet
committed) reads rows nobody else sees, and may yet roll back, leaving the generation its
write made current: `cached`, `cached_many` and `answer` compute for it without reading or
filing anything in the shared cache, and `local` keeps its value for it alone (`_as_read_now`).

`answer()` keeps a whole answer (a page body, an API response's data) when its outcome may be
kept (a 200, no cookie), and rebuilds it from what was kept.

`local()` keeps a large value (every case's passage vectors, search's vocabulary with its
lexicon) in this process only, for the current generation; the shared cache holds the small
token it is checked against. A write that names the cases it changed (`changed(case_ids)`)
files them in the shared cache under the generation it replaced, so a value that can take
a few changed cases in (`local(..., update=...)`: the passage vectors, whose full read took
5 s at 100,000 cases after every write) re-reads only those; a missing or contested link in
that chain, or a write that names no cases, means reading everything again.

Only with `settings.STORE_CACHE` (on when `CACHE_URL` names a cache server such as Redis):
every process must see the same token, and with the database cache each cache read is a
query costing about what it saves. Off, `cached` and `local` compute every time.

Every write also replaces the generation in the servers' cache when it is not the writer's
own (incidents/servers_cache.py: each server records its cache in the database at start-up),
so a command run without the servers' CACHE_URL never leaves them serving what it changed;
a write that cannot reach a cache it must tell is refused (`SharedCacheUnreachable`).

A cache server that does not answer (`CACHE_ERRORS`) degrades reads to the database: they
are computed as with the store cache off, and the outage is logged (once a minute).
"""

from __future__ import annotations

import gc
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.base import BaseCache
from django.db import transaction

from incidentlib.cache_errors import CACHE_ERRORS
from incidentlib.db_router import primary_reads
from incidents.collector import settle
from incidents.models import Case
from incidents.servers_cache import SharedCacheUnreachable, servers_cache, unreachable

logger = logging.getLogger("incidentlib.reliability")

T = TypeVar("T")

GENERATION_KEY = "incidentlib:store-generation"
# `DELTA_PREFIX + token`: (the token that replaced it, the ids of the cases that write
# changed), or None when the write named none or two writers replaced the same token.
DELTA_PREFIX = "incidentlib:store-delta:"
# Links followed from a value's generation to the current one before reading everything.
MAX_DELTAS = 64
# A write naming more than this share of the library files a full read (a link naming no
# case): re-reading that many costs about what reading everything does, and every reader
# would fetch the whole list (100,000 ids after a large import). Lists of at most
# FULL_READ_FLOOR ids are filed without counting the library (a query).
FULL_READ_SHARE = 0.25
FULL_READ_FLOOR = 64
# Cached values outlive no generation; the timeout only bounds what an unused one occupies.
VALUE_TIMEOUT = 3600
_MISSING = object()
# name -> (generation, value, the uncommitted changes of the store the reading connection
# saw: `_pending_changes`, checked by `_holds` before `update` starts from the value).
_local: dict[str, tuple[str, Any, tuple[_AfterCommit, ...]]] = {}
_local_lock = threading.Lock()
_settled = [""]  # the generation whose values the last full `settle` kept
# One lock a name: the threads of a worker asking for the same value at once (a burst after
# an import) wait for one of them to compute it instead of each building its own copy.
_building: dict[str, threading.RLock] = {}
# Seconds between two log lines of one process saying its cache server does not answer.
DOWN_LOG_INTERVAL = 60.0
_down_logged = [0.0]


def _new_token() -> str:
    return f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}"


# The generation a request has read (`one_generation`): a kept page or API answer read it
# twice (the store version behind its ETag, then the answer) and a search once per value it
# takes from the cache, a cache round trip each. A request's own write replaces it.
_request_generation: ContextVar[list[str] | None] = ContextVar("store_generation", default=None)


@contextmanager
def one_generation() -> Iterator[None]:
    """Within, `generation()` reads the shared cache once and then answers from memory,
    except after a write made within (`changed()`), which it answers with. For one request
    (`incidentlib.middleware.StoreGenerationMiddleware`): a write another process makes
    meanwhile is seen by the next request, as if this one had read everything first."""
    reset = _request_generation.set([])
    try:
        yield
    finally:
        _request_generation.reset(reset)


def generation() -> str:
    """The current store generation (a token; a new one after every write). One cache read,
    none more within `one_generation`."""
    remembered = _request_generation.get()
    if remembered:
        return remembered[0]
    token = _shared_generation()
    if remembered is not None:
        remembered.append(token)
    return token


def _shared_generation() -> str:
    """The generation in the shared cache now (one read), whatever the request remembers."""
    token = cache.get(GENERATION_KEY)
    if token is None:
        cache.add(GENERATION_KEY, _new_token(), timeout=None)
        token = cache.get(GENERATION_KEY) or _new_token()
    return token


def _cache_down(exc: Exception) -> None:
    """Log that the cache server did not answer (at most once a `DOWN_LOG_INTERVAL`)."""
    now = time.monotonic()
    if now - _down_logged[0] >= DOWN_LOG_INTERVAL:
        _down_logged[0] = now
        logger.error("shared cache unavailable, reading from the database: %s: %s", type(exc).__name__, exc)


def _replace(case_ids: tuple[str, ...] | None = None, target: BaseCache | None = None) -> None:
    """A new generation in `target` (this process's cache when None), linked from the one it
    replaces; a cache that does not answer refuses the write (`SharedCacheUnreachable`)."""
    own = target is None
    into = cache if target is None else target
    token = _new_token()
    try:
        replaced = into.get(GENERATION_KEY)
        into.set(GENERATION_KEY, token, timeout=None)
        if replaced is not None:
            _file_delta(replaced, token, case_ids, into)
    except CACHE_ERRORS as exc:
        raise unreachable(into, exc, own=own) from exc
    remembered = _request_generation.get()
    if own and remembered is not None:
        remembered[:] = [token]


def _file_delta(
    replaced: str, token: str, case_ids: tuple[str, ...] | None, into: BaseCache | None = None
) -> None:
    """File what replaced the generation `replaced`: `token` and `case_ids`. Only the first
    writer to replace it may (`add`): another that read the same token changed cases this
    link does not name, so the link is then spoilt (None) and readers read everything."""
    into = cache if into is None else into
    key = DELTA_PREFIX + replaced
    if case_ids is None or not into.add(key, (token, case_ids), timeout=VALUE_TIMEOUT):
        into.set(key, None, timeout=VALUE_TIMEOUT)


def changed(case_ids: Iterable[str] | None = None) -> None:
    """Mark the store as changed: call from every service that writes cases or terms,
    inside its transaction. Cached reads are recomputed from now on and again after commit.
    `case_ids`: every case whose own text, passages or status the write may have changed (a
    superset is fine), so that `local` values with an `update` re-read only those; None when
    the write cannot say (every such value is read again), as when they are more than
    `FULL_READ_SHARE` of the library (one count of the cases, for more than
    `FULL_READ_FLOOR`).
    Also replaces the generation in the servers' recorded cache when it is not this
    process's (one query; `incidents.servers_cache`), whether or not the store cache is on
    here. Raises `SharedCacheUnreachable` when a cache to tell does not answer."""
    servers = servers_cache()
    if not settings.STORE_CACHE and servers is None:
        return
    named = None if case_ids is None else tuple(sorted(set(case_ids)))
    if named is not None and len(named) > FULL_READ_FLOOR and len(named) > FULL_READ_SHARE * _library_size():
        named = None
    if settings.STORE_CACHE:
        _replace(named)
    if servers is not None:
        _replace(named, servers)
    transaction.on_commit(_AfterCommit(named, servers))


def _library_size() -> int:
    """How many cases the store holds, as this connection reads it (one query)."""
    return Case.objects.count()


class _AfterCommit:
    """`changed`'s second replacement, once its transaction committed (`on_commit`). Known by
    its class among a connection's pending callbacks (`_pending_changes`); `done` once run."""

    def __init__(self, case_ids: tuple[str, ...] | None, servers: BaseCache | None = None):
        self.case_ids = case_ids
        self.servers = servers
        self.done = False

    def __call__(self) -> None:
        self.done = True
        # Committed: too late to refuse. The first replacement already retired the values
        # kept before the write; only one computed during the transaction may be kept.
        try:
            if settings.STORE_CACHE:
                _replace(self.case_ids)
            if self.servers is not None:
                _replace(self.case_ids, self.servers)
        except SharedCacheUnreachable as exc:
            logger.error("after a committed write: %s", exc)


def _pending_changes() -> tuple[_AfterCommit, ...]:
    """The changes of the store this thread's connection made in its open transaction (a
    rolled-back savepoint's are dropped): what it reads now holds their rows."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        return ()
    return tuple(
        pending[1]
        for pending in connection.run_on_commit
        if isinstance(pending[1], _AfterCommit) and not pending[1].done  # done: run as if committed
    )


def _writing() -> bool:
    """Whether this thread's connection has written the store in its open transaction (a
    `changed()` not yet committed): what it reads then is not to be kept for others, nor
    read from what others kept (their values lack its rows)."""
    return bool(_pending_changes())


def _as_read_now(seen: tuple[_AfterCommit, ...]) -> bool:
    """Whether a value read with the uncommitted changes `seen` (`_pending_changes`) is what
    this thread reads now: each committed since or pending here, and nothing pending here
    that it lacks. A value the writer read is not served to another thread, nor after a
    rollback (which leaves the generation its write made current)."""
    pending = _pending_changes()
    return _holds(seen) and all(any(change is s for s in seen) for change in pending)


def _holds(seen: tuple[_AfterCommit, ...]) -> bool:
    """Whether a value read with the uncommitted changes `seen` (`_pending_changes`) still
    holds: each committed since, or is still pending on this thread's connection. A change
    rolled back leaves no link naming its cases, so a value holding its rows must be read
    again whole (a rolled-back edit's passage vectors were kept through every later write's
    re-read of only its own cases); so must one read by another thread's open transaction."""
    if not seen:
        return True
    pending = _pending_changes()
    return all(change.done or any(change is p for p in pending) for change in seen)


def changed_between(held: str, token: str) -> frozenset[str] | None:
    """The cases changed from generation `held` to generation `token`, following the links
    `changed` filed (one cache read each, at most MAX_DELTAS); None when a link is missing
    (expired, evicted, not yet filed) or spoilt, or `token` is not reached."""
    found: set[str] = set()
    at = held
    for _ in range(MAX_DELTAS):
        if at == token:
            return frozenset(found)
        link = cache.get(DELTA_PREFIX + at)
        if link is None:
            return None
        at, case_ids = link
        found.update(case_ids)
    return frozenset(found) if at == token else None


def _key(name: str, token: str | None = None) -> str:
    return f"incidentlib:{name}:{token or generation()}"


def cached(name: str, compute: Callable[[], T]) -> T:
    """`compute()`'s value for the current generation, from the shared cache when present
    (two cache reads), else computed and stored. `name` must say everything the value
    depends on besides the store (arguments included). Computed, and not stored, inside a
    transaction that has written the store and not yet committed (`_writing`)."""
    if not settings.STORE_CACHE or _writing():
        return compute()
    try:
        key = _key(name)
        value = cache.get(key, _MISSING)
    except CACHE_ERRORS as exc:
        _cache_down(exc)
        return compute()
    if value is _MISSING:
        with primary_reads():  # never a lagging replica's answer under the new token
            value = compute()
        _keep(key, value)
    return value


def _keep(key: str, value: Any) -> None:
    """File `value` under `key`; a cache that stopped answering meanwhile only loses it."""
    try:
        cache.set(key, value, timeout=VALUE_TIMEOUT)
    except CACHE_ERRORS as exc:
        _cache_down(exc)


def cached_many(names: Sequence[str], compute: Callable[[list[str]], dict[str, T]]) -> dict[str, T]:
    """Like `cached`, for several values at once: name -> value for each of `names`, those
    not held for the current generation computed by one `compute(missing names)` call
    (which returns them by name). One cache read for all, one write for those computed;
    neither inside a transaction that has written the store (`_writing`)."""
    if not settings.STORE_CACHE or _writing():
        return compute(list(names))
    try:
        token = generation()  # once for all, before the database is read
        keys = {name: _key(name, token) for name in names}
        held = cache.get_many(list(keys.values()))
    except CACHE_ERRORS as exc:
        _cache_down(exc)
        return compute(list(names))
    found = {name: held[key] for name, key in keys.items() if key in held}
    missing = [name for name in names if name not in found]
    if missing:
        with primary_reads():
            fresh = compute(missing)
        try:
            cache.set_many({keys[name]: value for name, value in fresh.items()}, timeout=VALUE_TIMEOUT)
        except CACHE_ERRORS as exc:
            _cache_down(exc)
        found.update(fresh)
    return found


def answer(
    name: str, compute: Callable[[], T], *, keep: Callable[[T], Any], restore: Callable[[Any], T]
) -> T:
    """Like `cached`, for a whole answer (a page, an API response) that only some outcomes
    may be kept of: `restore(kept)` when an answer of this generation was kept, else
    `compute()`, whose `keep(answer)` is the picklable form to keep, or None for an answer
    not to keep (an error, a redirect, one that sets a cookie). Computed, and not kept,
    inside a transaction that has written the store and not yet committed (`_writing`)."""
    if not settings.STORE_CACHE or _writing():
        return compute()
    try:
        key = _key(name)
        held = cache.get(key)
    except CACHE_ERRORS as exc:
        _cache_down(exc)
        return compute()
    if held is not None:
        return restore(held)
    with primary_reads():
        fresh = compute()
    kept = keep(fresh)
    if kept is not None:
        _keep(key, kept)
    return fresh


def local(name: str, compute: Callable[[], T], update: Callable[[T, frozenset[str]], T] | None = None) -> T:
    """Like `cached`, but the value stays in this process (too large to ship per request);
    one cache read checks it is still current. Computed once per generation in a process:
    threads asking at the same time wait for the first (sixteen concurrent first searches
    at 10,000 cases each loaded every passage vector, and a worker went past 2 GB).
    `update(value, case_ids)`: the value of an older generation with the cases changed since
    read again, when `changed_between` can name them (a few cache reads) and no write the
    value was read with was rolled back since (`_holds`); it must return what `compute()`
    would. A value read inside a transaction that wrote the store serves that transaction
    only (`_as_read_now`)."""
    if not settings.STORE_CACHE:
        return compute()
    try:
        return _local_value(name, compute, update)
    except CACHE_ERRORS as exc:
        # Only the cache's reads raise these (`generation`, `changed_between`): a value of
        # some generation is never served without the token to check it against.
        _cache_down(exc)
        return compute()


def _local_value(name: str, compute: Callable[[], T], update: Callable[[T, frozenset[str]], T] | None) -> T:
    token = generation()
    held = _local.get(name)
    if held is not None and held[0] == token and _as_read_now(held[2]):
        return held[1]
    if _request_generation.get():
        # A request that began before the last write remembers the generation before it;
        # another thread may hold the value of the newer one already. Compared with the
        # shared token, a long request neither rebuilds the value nor files it under its
        # older token. (Outside a request `generation()` has just read the shared token.)
        token = _shared_generation()
        if held is not None and held[0] == token and _as_read_now(held[2]):
            return held[1]
    with _local_lock:
        building = _building.setdefault(name, threading.RLock())
    with building:
        held = _local.get(name)
        if held is not None and held[0] == token and _as_read_now(held[2]):
            return held[1]  # another thread computed it meanwhile
        # One of this generation read with other uncommitted changes: no link names what
        # differs, so it is read whole.
        base = (
            held if held is not None and held[0] != token and update is not None and _holds(held[2]) else None
        )
        with primary_reads():
            since = changed_between(base[0], token) if base is not None else None
            value = update(base[1], since) if base is not None and update and since is not None else compute()
        with _local_lock:
            _local[name] = (token, value, _pending_changes())
            first_of_generation = _settled[0] != token
            _settled[0] = token
        # Kept for the generation: out of the collector's way. Up to six values are rebuilt
        # after a write; a full collection (about 100 ms with a worker's start-up state
        # alone) is due only once per generation, the others only set aside what is new.
        if first_of_generation:
            settle()
        else:
            gc.freeze()
    return value
