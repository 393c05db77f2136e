"""The step a server runs when it starts (incidentlib/server_start.py) runs once per process,
before the application's first answer, however many requests arrive at once; one that
failed is not run again on every later request."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from incidentlib.server_start import on_first_call_asgi, on_first_call_wsgi


class Step:
    """A start step that takes a while (as a database write does) and counts its runs."""

    def __init__(self, fails: bool = False):
        self.runs = 0
        self.fails = fails
        self.threads: set[int] = set()

    def __call__(self) -> None:
        self.runs += 1
        self.threads.add(threading.get_ident())
        time.sleep(0.05)
        if self.fails:
            raise RuntimeError("the step failed")


def wsgi_app(answered: list[int], step: Step):
    def app(environ, start_response):
        answered.append(step.runs)  # what had run when this request was answered
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    return app


def test_wsgi_requests_at_once_run_the_step_once_before_any_answer():
    step, answered = Step(), list[int]()
    app = on_first_call_wsgi(wsgi_app(answered, step), step)
    threads = [threading.Thread(target=app, args=({}, lambda *a: None)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert step.runs == 1
    assert answered == [1] * 8


def test_a_failed_step_is_not_run_again():
    step, answered = Step(fails=True), list[int]()
    app = on_first_call_wsgi(wsgi_app(answered, step), step)
    with pytest.raises(RuntimeError, match="the step failed"):
        app({}, lambda *a: None)
    assert app({}, lambda *a: None) == [b"ok"]
    assert step.runs == 1


def test_asgi_calls_at_once_run_the_step_once_in_a_thread_before_any_answer():
    step, answered = Step(), list[int]()

    async def app(scope, receive, send):
        answered.append(step.runs)

    wrapped = on_first_call_asgi(app, step)

    async def receive() -> dict:
        return {"type": "http.disconnect"}

    async def send(message: object) -> None:
        pass

    async def calls() -> None:
        await asyncio.gather(*(wrapped({"type": "http"}, receive, send) for _ in range(8)))

    asyncio.run(calls())
    assert step.runs == 1
    assert answered == [1] * 8
    assert threading.get_ident() not in step.threads  # not on the event loop's thread
