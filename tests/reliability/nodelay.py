"""Whether asyncio gives the connections a listening socket accepts TCP_NODELAY (without it,
each keep-alive answer waits for the client's delayed ACK)."""

from __future__ import annotations

import asyncio
import socket


def accepted_with_nodelay(listener: socket.socket) -> bool:
    """Serve `listener` (listening, on 127.0.0.1) with asyncio for one connection made to it,
    and say whether the accepted connection had TCP_NODELAY set."""
    port = listener.getsockname()[1]
    seen: list[int] = []

    async def serve_one() -> None:
        accepted = asyncio.Event()

        def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()
            accepted.set()

        server = await asyncio.start_server(on_connection, sock=listener)
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            await asyncio.wait_for(accepted.wait(), timeout=10)
            writer.close()

    asyncio.run(serve_one())
    return bool(seen) and seen[0] != 0
