"""What a server process does once when it starts serving, before its first answer.

Now one thing: `incidents.servers_cache.servers_started`, which records the servers' shared
cache in the database (the store cache on) or removes the record (off: a library moved off
Redis no longer leaves writers telling a cache nobody reads, or refused once it is gone).

When: on the first call of the application, not when its module is imported. Importing
`incidentlib.asgi` or `incidentlib.wsgi` touches no database, whatever the settings: pytest
imports the WSGI application while collecting (tests/api/test_schemathesis), when
pytest-django forbids database access, and a removal at import stopped the whole suite from
starting. Nor in `incidentlib/serve.py` alone: `uvicorn incidentlib.asgi:application`,
`manage.py runserver` and a WSGI server load the application without it. The first call
holds for each of them:

- ASGI (`on_first_call_asgi`): uvicorn's first call is the lifespan start-up, which it
  completes before accepting connections, so the record is in place before the worker
  answers anything; with `--lifespan off`, the first request. Run in a thread (it queries
  the database and probes the cache), whose database connections are closed after.
- WSGI (`on_first_call_wsgi`): there is no start-up event; the first request, in its own
  thread, before it is answered.

Each worker process does it once (several threads or requests at once wait for the one
doing it). An error the step raises is not retried: it would be raised again on every
request. The test client does not go through these wrappers (Django's own handler), so a
test's requests change no record unless they call the application module's.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from typing import Any

from django.db import connections
from starlette.types import ASGIApp, Receive, Scope, Send

StartStep = Callable[[], None]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class _Once:
    """`step` run once per process, however many threads ask at the same time."""

    def __init__(self, step: StartStep):
        self.step = step
        self.done = False
        self._lock = threading.Lock()

    def run(self) -> None:
        with self._lock:
            if self.done:
                return
            try:
                self.step()
            finally:
                self.done = True


def on_first_call_asgi(app: ASGIApp, step: StartStep) -> ASGIApp:
    """`app`, running `step` in a thread before its first call (any scope: the lifespan
    start-up under uvicorn) completes; later calls go straight to `app`."""
    once = _Once(step)

    def run_and_close() -> None:
        try:
            once.run()
        finally:
            connections.close_all()  # this thread's: nothing else of it uses them

    async def first_call_first(scope: Scope, receive: Receive, send: Send) -> None:
        if not once.done:
            await asyncio.to_thread(run_and_close)
        await app(scope, receive, send)

    return first_call_first


def on_first_call_wsgi(app: WSGIApp, step: StartStep) -> WSGIApp:
    """`app`, running `step` in the first request's thread before answering it; later
    requests go straight to `app`. The request's own handling closes the connections."""
    once = _Once(step)

    def first_call_first(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not once.done:
            once.run()
        return app(environ, start_response)

    return first_call_first
