"""`collector_paused` is one switch per process: pauses in several threads (a bulk read on
one request, the similar cases of a pending case on another) keep the collector off until
the last ends, and then put it back as it was before the first."""

from __future__ import annotations

import gc
import threading

import pytest

from incidents.collector import collector_paused


def test_the_collector_comes_back_when_the_last_of_two_overlapping_pauses_ends():
    assert gc.isenabled()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def first() -> None:
        with collector_paused():
            first_in.set()
            second_in.wait(5)
        seen["after the first left"] = gc.isenabled()
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with collector_paused():
            second_in.set()
            first_out.wait(5)
            seen["inside the second, the first gone"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == {"after the first left": False, "inside the second, the first gone": False}
    assert gc.isenabled()


def test_a_pause_that_raises_still_ends_and_a_collector_turned_off_stays_off():
    with pytest.raises(ValueError), collector_paused():
        assert not gc.isenabled()
        raise ValueError("read failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused(), collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
