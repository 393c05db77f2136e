"""A value kept in the process per store generation (`store_cache.local`: every passage
vector, the vocabulary search plans with) is computed once however many threads of a worker
ask at the same moment: sixteen concurrent first searches at 10,000 cases each loaded every
passage vector, and a worker went past 2 GB. After a write it is computed once again."""

from __future__ import annotations

import threading
import time

import pytest

from incidents import store_cache

pytestmark = pytest.mark.django_db


def _ask_at_once(name: str, compute, threads: int = 8) -> list[object]:
    start = threading.Barrier(threads)
    values: list[object] = []

    def ask():
        start.wait()
        values.append(store_cache.local(name, compute))

    workers = [threading.Thread(target=ask) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return values


def test_concurrent_first_asks_compute_once(store_cache_on):
    computed: list[int] = []

    def compute() -> dict[str, int]:
        computed.append(threading.get_ident())
        time.sleep(0.2)  # long enough for every thread to arrive while it runs
        return {"vectors": len(computed)}

    values = _ask_at_once("test-build-once", compute)
    assert len(computed) == 1
    assert len(values) == 8 and all(value is values[0] for value in values)

    store_cache.changed()  # a write: a new generation
    again = _ask_at_once("test-build-once", compute)
    assert len(computed) == 2
    assert all(value == {"vectors": 2} for value in again)
