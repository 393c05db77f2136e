"""How many searches and log matches a process computes at once (`one_at_a_place`).

A worker runs each request in a thread of its own, and each search or log match holds what
it computes while it runs: SQLite's full-text look-ups (in the worker's own memory: the
matches of every word, the ranked rows), numpy temporaries of the semantic ranking, the
hits. From 16 connections a worker at 100,000 cases ran eight of them at once and its
resident set peaked about 80 MB above what it held between requests (`bench/memory.py`),
where the two cores of the machine could only run two of them at a time anyway. Bounded
to `settings.SEARCH_CONCURRENCY` places, the others wait their turn before they start
(holding their request, nothing more), and the throughput is that of the cores.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connections

_places: threading.BoundedSemaphore | None = None
_places_lock = threading.Lock()
_held = threading.local()  # depth: a search inside a log match (triage) takes no second place


def _semaphore() -> threading.BoundedSemaphore:
    global _places
    if _places is None:
        with _places_lock:
            if _places is None:
                _places = threading.BoundedSemaphore(max(1, settings.SEARCH_CONCURRENCY))
    return _places


@contextmanager
def one_at_a_place() -> Iterator[None]:
    """Run the block in one of the `settings.SEARCH_CONCURRENCY` places of this process,
    waiting for one to be free; a thread already holding a place runs it at once (nested
    searches wait for nothing, so they cannot wait for themselves)."""
    depth = getattr(_held, "depth", 0)
    if depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth = depth
        return
    places = _semaphore()
    if not places.acquire(blocking=False):
        _return_pooled_connections()
        places.acquire()
    _held.depth = 1
    try:
        yield
    finally:
        _held.depth = 0
        places.release()
        _trim()


def _return_pooled_connections() -> None:
    """Give this thread's pooled database connections back to their pool before waiting
    for a place. A request usually holds one already (the store version, a vocabulary
    look-up); held through the wait, a burst of searches took every connection of a worker's
    PostgreSQL pool (`DB_POOL_MAX_SIZE`) and the requests behind them, searches or not,
    failed after `DB_POOL_TIMEOUT` with a 503. The next query takes one from the pool again.
    A connection inside a transaction is kept (closing it would end the transaction), and so
    is one without a pool (SQLite, PostgreSQL without DB_POOL_MAX_SIZE): nobody else waits
    for it."""
    for connection in connections.all(initialized_only=True):
        pooled = connection.settings_dict.get("OPTIONS", {}).get("pool")
        if pooled and connection.connection is not None and not connection.in_atomic_block:
            connection.close()


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None elsewhere (another C library, another system)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def _trim() -> None:
    """Give the pages a search freed back to the system. glibc keeps freed memory in its
    arenas, resident, for the next allocations; a search's temporaries freed that way left
    6 to 16 MB resident in a worker at 100,000 cases after each search, which the next
    ones' only partly reused (fragments), so a worker's resident set crept up under load.
    About a millisecond a search."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
