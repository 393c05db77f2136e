"""A tiny ASGI application for the server tests: answers every request with the id of the
process that served it and the client address it saw, as `pid host:port`; `/slow` sends its
headers and that at once, then ` slow` 3 seconds later."""

from __future__ import annotations

import asyncio
import os


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    host, port = scope["client"]
    body = f"{os.getpid()} {host}:{port}".encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    if scope["path"] == "/slow":  # in flight for sure once its headers are out
        await send({"type": "http.response.body", "body": body, "more_body": True})
        await asyncio.sleep(3)
        body = b" slow"
    await send({"type": "http.response.body", "body": body})
