"""Python's cyclic garbage collector: paused around a bulk read of the similar-case data,
kept off what an import loaded while it runs (`set_aside_while`) and off a worker's
long-lived state (`settle`)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pauses:
    """The pauses under way in this process. The collector's switch is one per process,
    so the first pause turns it off and the last one to end turns it back on (when it was
    on), whichever thread each runs in: a thread that saw it off because another was
    pausing would otherwise leave it off for good."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.was_on = False

    def enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                self.was_on = gc.isenabled()
                gc.disable()
            self.depth += 1

    def leave(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0 and self.was_on:
                gc.enable()


_PAUSES = _Pauses()


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block, and as it was before once every
    pause under way has ended, even when a block raises.

    For code that builds a dict or tuple per case (or per word of every case) and no
    reference cycles: each full collection walks every object made so far again. At
    100,000 cases, reading every published profile took 10.6 s with the collector on and
    7.0 s paused. Memory is unchanged, since such code leaves no cyclic garbage for the
    collector to find; other threads' garbage waits for the pause to end."""
    _PAUSES.enter()
    try:
        yield
    finally:
        _PAUSES.leave()


@contextmanager
def set_aside_while() -> Iterator[None]:
    """Everything alive now out of the collector's way inside the block (`gc.freeze`), and
    everything set aside back under it afterwards, what `settle` had set aside included
    (until its next call).

    No full collection first: it walked every object of the process (Django, the apps,
    numpy: 36 ms of CPU in a fresh `manage.py import_cases` of 10 cases) to free a few
    dozen. Garbage alive now is set aside with the rest and
    collected after the block like any other."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def settle() -> None:
    """Set every object alive now aside from all later collections (`gc.freeze`), after a
    full collection of everything, what an earlier call set aside included: for a worker's
    long-lived state, once loaded.

    A full collection walks every tracked object, and a worker holds many that live as long
    as it does (Django, the apps, the per-process values of `store_cache.local`). At 1,000
    cases a search worker held about 150,000: every twentieth search or so paid a full
    collection of 70 to 150 ms on top of its own 25 to 40, which made the p95 of one client
    (200 searches in process: p95 129 ms, full collections 1.2 s in all; set aside, p95 62
    ms and 0.27 s). Frozen objects are still freed when their last reference goes (a
    replaced value is), but cyclic garbage among them is not: a request in flight when a
    value is built is frozen with it (a Django request refers to itself through its lazy
    user), so each call first takes back what the last one set aside and collects it. What
    stays frozen at most is what was alive at the last call. Costs one full collection."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
