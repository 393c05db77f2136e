"""A worker's long-lived state is set aside from the garbage collector's full collections
(`incidents.collector.settle`): the per-process values of `store_cache.local` once built,
and what every worker imports at start. Garbage of that moment is collected first, not
set aside, and what was set aside only because it was alive then (a request in flight) is
collected at the next build once it is garbage."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from incidents import store_cache

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def unfrozen_after() -> Iterator[None]:
    yield
    gc.unfreeze()  # the other tests' objects back under the collector


def tracked_ids() -> set[int]:
    return {id(o) for o in gc.get_objects()}


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_a_process_value_is_set_aside_once_built(store_cache_on):
    value = store_cache.local("set-aside", lambda: {n: [n, str(n)] for n in range(1000)})
    tracked = tracked_ids()
    assert not any(id(part) in tracked for part in value.values())
    assert id(value) not in tracked
    # Asked again in the same generation: the same value, nothing built or collected.
    assert store_cache.local("set-aside", lambda: pytest.fail("built twice")) is value


def test_cyclic_garbage_of_that_moment_is_collected_not_set_aside(store_cache_on):
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.disable()  # no collection of its own before the build
    try:
        store_cache.local("set-aside", lambda: [[n] for n in range(10)])
    finally:
        gc.enable()
    assert gone() is None


def test_what_was_in_flight_at_a_build_is_collected_at_the_next(store_cache_on, db):
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    store_cache.local("set-aside", lambda: [[n] for n in range(10)])  # a and b alive: set aside
    del a, b
    assert gone() is not None
    store_cache.changed()  # a write: the next read builds the value again
    store_cache.local("set-aside", lambda: [[n] for n in range(10)])
    assert gone() is None


def test_without_a_store_cache_nothing_is_kept_or_set_aside(settings):
    settings.STORE_CACHE = False
    value = store_cache.local("set-aside", lambda: {n: [n] for n in range(100)})
    tracked = tracked_ids()
    assert all(id(part) in tracked for part in value.values())


def test_a_worker_sets_aside_what_it_loads_at_start():
    script = (
        "import gc, json, incidentlib.asgi; print(json.dumps([gc.get_freeze_count(), len(gc.get_objects())]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    frozen, tracked = json.loads(result.stdout.strip().splitlines()[-1])
    assert frozen > 100_000  # Django, DRF, the apps, the MCP server, the encoder's tables
    assert tracked < frozen / 100


def test_one_full_collection_per_generation_however_many_values(store_cache_on, db, monkeypatch):
    calls: list[str] = []
    real = store_cache.settle

    def counted() -> None:
        calls.append("settle")
        real()

    monkeypatch.setattr(store_cache, "settle", counted)
    first = store_cache.local("first", lambda: [[1]])
    second = store_cache.local("second", lambda: [[2]])
    assert calls == ["settle"]
    tracked = tracked_ids()
    assert id(first[0]) not in tracked and id(second[0]) not in tracked  # both set aside
    store_cache.changed()
    store_cache.local("first", lambda: [[3]])
    assert calls == ["settle", "settle"]
