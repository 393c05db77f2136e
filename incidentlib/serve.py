"""The production server: uvicorn worker processes that each accept on a socket of their own.

    python -m incidentlib.serve --workers 2 --host 0.0.0.0 --port 8000 [uvicorn options]

Why not `uvicorn --workers N`: its workers share one listening socket, and asyncio accepts
every connection waiting on it in one go, so a burst of keep-alive connections lands on
whichever worker woke first. Measured here with 2 workers and `wrk -c16` on `/healthz`, one
run in five put every connection on one worker, which served them alone (338 against 574 to
613 requests a second) while the other idled; the ratios `make bench` compares moved with
that luck (case JSON 0.43 to 1.11 of the floor across runs). Here each worker gets its own
socket bound to the same address with `SO_REUSEPORT`, and the kernel spreads new connections
over them by a hash of the client's address and port (uvicorn has no option for it:
encode/uvicorn#2472).

The parent binds every socket first (a port in use is reported once, before any worker
starts: any listener counts, another server sharing the port through `SO_REUSEPORT`
included), then runs one uvicorn process per socket (`uvicorn --fd --workers 1`, with the
other options as given) and supervises: SIGTERM, SIGINT or SIGHUP (unless ignored, as under
`nohup`) stop every worker gracefully, each finishing the requests it holds; a worker that
exits on its own is started again on its socket, whose waiting connections it then serves.
A worker that dies within `EARLY_EXIT_SECONDS` of starting, `MAX_EARLY_EXITS` times in a
row, ends the server with its exit code (a broken configuration, not a crash to ride out).
A worker whose parent dies (killed, out of memory) is stopped too, so no orphan keeps
answering on the port.

Where the platform has no `SO_REUSEPORT` (not Linux), with one worker, or with `--reload`,
this is plain `uvicorn` with the same options.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

APP = "incidentlib.asgi:application"
BACKLOG = 2048
EARLY_EXIT_SECONDS = 5.0
MAX_EARLY_EXITS = 3
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def balanced() -> bool:
    """Whether the kernel spreads connections over sockets sharing a port (Linux's
    `SO_REUSEPORT`; other systems accept the option but hand every connection to one)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _refuse_a_port_in_use(family: int, host: str, port: int) -> None:
    """OSError(EADDRINUSE) when something listens on (`host`, `port`): a socket without
    `SO_REUSEPORT` cannot bind beside any listener, where one with it would join another
    server's group (as a second launcher on the same port would) and share its traffic."""
    with socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no listener
        probe.bind((host, port))


def listening_sockets(host: str, port: int, count: int, backlog: int = BACKLOG) -> list[socket.socket]:
    """`count` TCP sockets listening on (`host`, `port`), each with `SO_REUSEPORT` set, so
    that the kernel balances new connections over them. Port 0 picks a free port for the
    first and binds the rest to the same. Raises OSError (the port is taken by another
    program or server, the host is not an address of this machine) with every socket closed."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    if port:
        _refuse_a_port_in_use(family, host, port)
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            port = sock.getsockname()[1]
            sock.listen(backlog)
            sock.set_inheritable(True)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class Workers:
    """One `uvicorn --fd` child per socket, started again when it exits on its own."""

    def __init__(
        self, app: str, sockets: Sequence[socket.socket], options: Sequence[str], backlog: int = BACKLOG
    ):
        self.app = app
        self.backlog = backlog
        self.sockets = list(sockets)
        self.options = list(options)
        self.children: dict[int, subprocess.Popen[bytes]] = {}  # socket index -> worker
        self.started: dict[int, float] = {}
        self.early_exits = 0
        self.stopping = False

    def command(self, fd: int) -> list[str]:
        return [
            sys.executable, "-m", "incidentlib.serve",
            "--worker-fd", str(fd), "--worker-parent", str(os.getpid()), "--backlog", str(self.backlog),
            "--app", self.app, *self.options,
        ]  # fmt: skip

    def start(self, index: int) -> None:
        fd = self.sockets[index].fileno()
        child = self.children[index] = subprocess.Popen(
            self.command(fd), pass_fds=(fd,), env=worker_environment()
        )
        self.started[index] = time.monotonic()
        if self.stopping:  # a stop signal arrived while it was starting: `stop` missed it
            child.send_signal(signal.SIGTERM)

    def start_all(self) -> None:
        for index in range(len(self.sockets)):
            self.start(index)

    def stop(self, *_: object) -> None:
        """Ask every worker to finish its requests and exit (uvicorn's graceful SIGTERM)."""
        self.stopping = True
        for child in self.children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    def supervise(self) -> int:
        """Run until stopped; the exit code: 0, or that of a worker that kept dying early."""
        while True:
            for index, child in list(self.children.items()):
                code = child.poll()
                if code is None or self.stopping:
                    continue
                if time.monotonic() - self.started[index] < EARLY_EXIT_SECONDS:
                    self.early_exits += 1
                    if self.early_exits >= MAX_EARLY_EXITS:
                        print(
                            f"serve: a worker exited {code} at start {self.early_exits} times: stopping",
                            file=sys.stderr,
                        )
                        self.stop()
                        self.wait()
                        return code if code > 0 else 128 - code if code < 0 else 1
                else:
                    self.early_exits = 0
                print(f"serve: worker {child.pid} exited with {code}: starting another", file=sys.stderr)
                self.start(index)
            if self.stopping:
                return self.wait()
            time.sleep(0.2)

    def wait(self) -> int:
        for child in list(self.children.values()):
            child.wait()
        return 0


PR_SET_PDEATHSIG = 1


def _stop_with_parent(parent: int) -> None:
    """SIGTERM to this worker when the launcher dies (Linux's parent-death signal); exit now
    if it already has."""
    import ctypes  # only here: this path runs on Linux alone

    if ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
        print("serve: this worker will not stop with its parent (prctl failed)", file=sys.stderr)
    if os.getppid() != parent:
        sys.exit(0)


def socket_from_descriptor(descriptor: int, *_: int) -> socket.socket:
    """A socket object for a copy of `descriptor`, its family, type and protocol read from
    the descriptor (`socket.fromfd` with whatever family the caller names)."""
    return socket.socket(fileno=os.dup(descriptor))


def run_worker(
    fd: int, app: str, options: Sequence[str], parent: int | None = None, backlog: int = BACKLOG
) -> None:
    """`uvicorn --fd fd` with `options`, its socket taken for what it is. uvicorn reads a
    descriptor as a Unix socket (`socket.fromfd(fd, AF_UNIX, ...)`), so asyncio would not set
    TCP_NODELAY on the connections it accepts, and each keep-alive answer would wait for the
    client's delayed ACK (tried here: 296 requests a second against 555 on `/healthz`)."""
    import uvicorn.main

    if parent is not None:
        _stop_with_parent(parent)
    # A terminal's hangup reaches the whole group: uvicorn would die on it mid-request, so
    # only the launcher takes it (and stops this worker gracefully with SIGTERM).
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    socket.fromfd = socket_from_descriptor  # type: ignore[assignment]  # this worker process only
    # `--workers 1`: uvicorn would otherwise take WEB_CONCURRENCY and start workers of its
    # own on this socket, sharing it unevenly again. uvicorn listens on it again, hence
    # the backlog.
    uvicorn_args = [app, "--fd", str(fd), "--backlog", str(backlog), "--workers", "1", *options]
    uvicorn.main.main(args=uvicorn_args, prog_name="uvicorn")


def reloading(options: Sequence[str]) -> bool:
    """Whether uvicorn would reload on code changes: `--reload`, or UVICORN_RELOAD as click
    reads a flag from the environment (each worker would become a reloader of its own)."""
    flag = os.environ.get("UVICORN_RELOAD", "").strip().lower()
    return "--reload" in options or flag in {"1", "true", "t", "yes", "y", "on"}


def parse(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(
        prog="python -m incidentlib.serve",
        description="uvicorn workers, each accepting on a SO_REUSEPORT socket of its own; "
        "other options go to uvicorn.",
    )
    parser.add_argument("--app", default=APP, help=f"the ASGI application (default {APP})")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "1")), help="worker processes"
    )
    parser.add_argument(
        "--backlog", type=int, default=BACKLOG, help="each socket's queue of pending connections"
    )
    parser.add_argument("--worker-fd", type=int, help=argparse.SUPPRESS)  # a worker, started by the parent
    parser.add_argument("--worker-parent", type=int, help=argparse.SUPPRESS)
    return parser.parse_known_args(argv)


# glibc's malloc arenas a worker may keep (`MALLOC_ARENA_MAX`), unless the environment says.
# A worker runs each request in a thread, and glibc gives each thread an arena of its own (up
# to 8 per core), each keeping what its requests freed: after searches and log matches from
# 16 connections a worker held about 35 MB more anonymous memory than with 2 (173 cases,
# 197-200 against 164-168 MiB), at the same throughput.
MALLOC_ARENAS = "2"


def worker_environment() -> dict[str, str]:
    """The environment a worker starts with: this one, with `MALLOC_ARENA_MAX` set."""
    return {**os.environ, "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX") or MALLOC_ARENAS}


def main(argv: Sequence[str] | None = None) -> int:
    args, options = parse(sys.argv[1:] if argv is None else argv)
    if args.worker_fd is not None:
        run_worker(args.worker_fd, args.app, options, args.worker_parent, args.backlog)
        return 0
    if args.workers < 1:
        print("serve: --workers must be at least 1", file=sys.stderr)
        return 2
    if args.workers == 1 or not balanced() or reloading(options):
        plain = ["--host", args.host, "--port", str(args.port), "--backlog", str(args.backlog)]
        os.execve(
            sys.executable,
            [sys.executable, "-m", "uvicorn", args.app, *plain, "--workers", str(args.workers), *options],
            worker_environment(),
        )
    try:
        sockets = listening_sockets(args.host, args.port, args.workers, args.backlog)
    except OSError as error:
        print(f"serve: cannot listen on {args.host}:{args.port}: {error.strerror or error}", file=sys.stderr)
        return 1
    workers = Workers(args.app, sockets, options, args.backlog)
    for number in STOP_SIGNALS:
        if signal.getsignal(number) is not signal.SIG_IGN:  # nohup: SIGHUP stays ignored
            signal.signal(number, workers.stop)
    print(
        f"serve: {args.workers} workers on {args.host}:{sockets[0].getsockname()[1]} (SO_REUSEPORT)",
        file=sys.stderr,
    )
    try:
        workers.start_all()
        return workers.supervise()
    finally:
        if not workers.stopping:  # an error in the supervisor: no worker is left behind
            workers.stop()
            workers.wait()


if __name__ == "__main__":
    sys.exit(main())
