"""A process computes at most `settings.SEARCH_CONCURRENCY` searches and log matches at once
(`gate.py`): the others wait for a place before they start, and a search run inside a log
match (triage) takes no second place, so it never waits for itself."""

from __future__ import annotations

import threading

import pytest

from incidents import search
from incidents.search import gate


@pytest.fixture
def one_place(settings, monkeypatch):
    settings.SEARCH_CONCURRENCY = 1
    monkeypatch.setattr(gate, "_places", None)  # made again for the setting


def test_a_second_search_waits_until_the_first_leaves_its_place(one_place):
    inside, leave = threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        with gate.one_at_a_place():
            order.append("first in")
            inside.set()
            leave.wait(5)
            order.append("first out")

    def second() -> None:
        inside.wait(5)
        with gate.one_at_a_place():
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    inside.wait(5)
    threads[1].join(0.3)
    assert threads[1].is_alive() and order == ["first in"]  # waiting for the place
    leave.set()
    for thread in threads:
        thread.join(5)
    assert order == ["first in", "first out", "second in"]


def test_two_places_let_two_searches_run_at_once(settings, monkeypatch):
    settings.SEARCH_CONCURRENCY = 2
    monkeypatch.setattr(gate, "_places", None)
    both = threading.Barrier(2, timeout=5)

    def run() -> None:
        with gate.one_at_a_place():
            both.wait()  # broken (an error) unless both are inside at once

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not both.broken


@pytest.mark.django_db
def test_a_search_inside_a_held_place_runs_at_once(one_place):
    with gate.one_at_a_place():
        results = search.search_cases(query="nccl timeout")
        reading = search.read_log("NCCL watchdog timeout on rank 3")
    assert results.total > 0 and reading.lines_read == 1  # both ran, neither waited
    # The place is free again: another thread takes it at once.
    taken = threading.Event()

    def take() -> None:
        with gate.one_at_a_place():
            taken.set()

    thread = threading.Thread(target=take)
    thread.start()
    thread.join(5)
    assert taken.is_set()


class _Connection:
    """What `_return_pooled_connections` reads of a Django connection."""

    def __init__(self, *, pooled: bool, in_atomic_block: bool = False):
        self.settings_dict = {"OPTIONS": {"pool": {"max_size": 8}} if pooled else {}}
        self.in_atomic_block = in_atomic_block
        self.connection: object | None = object()

    def close(self) -> None:
        self.connection = None


def test_a_search_that_waits_gives_its_pooled_connection_back_first(one_place, monkeypatch):
    # Held through the wait, a burst of searches took a worker's whole PostgreSQL pool and the
    # requests behind them failed with a 503 (tests/reliability/test_load.py saw it).
    pooled, in_transaction, unpooled = (
        _Connection(pooled=True),
        _Connection(pooled=True, in_atomic_block=True),
        _Connection(pooled=False),
    )
    monkeypatch.setattr(
        gate.connections, "all", lambda initialized_only=False: [pooled, in_transaction, unpooled]
    )
    inside, leave = threading.Event(), threading.Event()

    def first() -> None:
        with gate.one_at_a_place():
            inside.set()
            leave.wait(5)

    holder = threading.Thread(target=first)
    holder.start()
    inside.wait(5)
    threading.Timer(0.3, leave.set).start()  # the first leaves its place while this one waits
    with gate.one_at_a_place():  # no place free at once: the connection goes back first
        pass
    holder.join(5)
    assert pooled.connection is None  # back in its pool
    assert in_transaction.connection is not None and unpooled.connection is not None


def test_a_search_with_a_free_place_keeps_its_connection(one_place, monkeypatch):
    pooled = _Connection(pooled=True)
    monkeypatch.setattr(gate.connections, "all", lambda initialized_only=False: [pooled])
    with gate.one_at_a_place():
        pass
    assert pooled.connection is not None
