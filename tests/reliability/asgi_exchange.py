"""One GET through an ASGI application as uvicorn would run it, for tests that need the
served handler rather than Django's test client (thread hops, streamed bodies)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any


def asgi_messages(
    app: Any, path: str, query: bytes = b"", headers: tuple[tuple[bytes, bytes], ...] = ()
) -> list[Mapping[str, Any]]:
    """The messages `app` sends for one GET of `path` from 127.0.0.1: the response start,
    then each body message. The client stays connected until the whole answer is sent."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": [(b"host", b"127.0.0.1"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[Mapping[str, Any]] = []

    async def exchange() -> None:
        requests = [{"type": "http.request", "body": b"", "more_body": False}]
        answered = asyncio.Event()

        async def receive() -> dict:
            if requests:
                return requests.pop()
            await answered.wait()
            return {"type": "http.disconnect"}

        async def send(message: Mapping[str, Any]) -> None:
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered.set()

        await app(scope, receive, send)

    # A loop of its own, as uvicorn's: under async_to_sync, code marked thread-sensitive would
    # run on this test's thread instead of the request's own.
    asyncio.run(exchange())
    return sent
