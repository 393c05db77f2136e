"""A Redis server of the test's own that refuses every command until AUTH with `PASSWORD`
(`redis-server --requirepass`): what `CACHE_URL=redis://:password@host:port/0` points at."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from tests.mcp.conftest import free_port

PASSWORD = f"pw-{uuid.uuid4().hex}"


@contextmanager
def protected_redis_server(folder: Path) -> Iterator[int]:
    """The port of a Redis server requiring `PASSWORD`, its files (none kept) in `folder`."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed (the cache tests need a Redis server)")
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--requirepass", PASSWORD,
         "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis(port=port, password=PASSWORD).ping()
                break
            except redis.ConnectionError:
                assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=port).ping()  # the password is really needed
        yield port
    finally:
        server.terminate()
        server.wait(timeout=10)
