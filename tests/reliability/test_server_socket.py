"""uvicorn's own listener (`uvicorn --workers N`, `make run`) answers keep-alive requests
without Nagle's delay: it is bound as a TCP socket, so asyncio sets TCP_NODELAY on each
accepted connection (the production launcher's sockets:
test_workers_share_the_connections.py). With uvicorn before 0.55 the listener had protocol
0 and every keep-alive request after the first waited about 40 ms for the client's delayed
ACK (measured 48 ms a request from one client against 6 ms)."""

from __future__ import annotations

import socket

from uvicorn.config import Config

from tests.reliability.nodelay import accepted_with_nodelay


def test_the_workers_listener_is_a_tcp_socket_and_its_connections_get_nodelay():
    listener = Config(app="incidentlib.asgi:application", host="127.0.0.1", port=0).bind_socket()
    try:
        assert listener.proto == socket.IPPROTO_TCP
        listener.listen()
        assert accepted_with_nodelay(listener)
    finally:
        listener.close()
