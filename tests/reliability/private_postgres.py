"""A PostgreSQL server of the test's own, to stop and start without touching the shared one.

`initdb` and `pg_ctl` come from Debian's PostgreSQL packages (the machine's server); as root
they run as the `postgres` user. The cluster lives in a temporary folder and listens on a
free port on 127.0.0.1 only.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (Debian package postgresql)")
    return found[-1]


def _as_postgres(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


@dataclass
class PrivatePostgres:
    directory: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def init(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres")
        subprocess.run(
            _as_postgres([_bin("initdb"), "-D", str(self.directory / "data"), "-A", "trust", "-U", "postgres",
                          "--no-sync", "-E", "UTF8"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.directory}"
        subprocess.run(
            _as_postgres([_bin("pg_ctl"), "-D", str(self.directory / "data"), "-o", options, "-w", "-t", "60",
                          "-l", str(self.directory / "server.log"), "start"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip

    def stop(self) -> None:
        subprocess.run(
            _as_postgres([_bin("pg_ctl"), "-D", str(self.directory / "data"), "-m", "fast", "-w", "stop"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
