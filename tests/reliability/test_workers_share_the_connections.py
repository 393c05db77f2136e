"""The production server (`python -m incidentlib.serve`) gives each worker a socket of its own
on the same port (`SO_REUSEPORT`), so the kernel spreads connections over the workers; with
`uvicorn --workers`' one shared socket, a burst of keep-alive connections could all land on
one worker (`incidentlib/serve.py`). It keeps the workers running: one that dies is started
again, SIGTERM stops them all, and a port in use is named before any worker starts."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from incidentlib import serve
from incidentlib.serve import listening_sockets, socket_from_descriptor
from tests.mcp.conftest import free_port
from tests.reliability.nodelay import accepted_with_nodelay

ROOT = Path(__file__).resolve().parents[2]
APP = "tests.reliability.answering_process:application"
CONNECTIONS = 32  # one request each; both workers answer some unless 1 in 2**31 hashes


def accept_waiting(listener: socket.socket) -> int:
    """Accept and close every connection waiting on `listener`; how many there were."""
    listener.setblocking(False)
    accepted = 0
    while True:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return accepted
        connection.close()
        accepted += 1


def test_the_kernel_spreads_connections_over_the_sockets_of_one_port():
    sockets = listening_sockets("127.0.0.1", 0, 2)
    try:
        port = sockets[0].getsockname()[1]
        assert [s.getsockname() for s in sockets] == [("127.0.0.1", port)] * 2
        assert all(s.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) for s in sockets)
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(64)]
        counts = [accept_waiting(s) for s in sockets]
        for client in clients:
            client.close()
        assert sum(counts) == 64
        assert min(counts) > 0, counts
    finally:
        for s in sockets:
            s.close()


def test_a_port_taken_by_another_program_is_refused_with_every_socket_closed():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            listening_sockets("127.0.0.1", taken.getsockname()[1], 2)


def test_a_workers_socket_is_read_as_tcp_so_its_connections_get_nodelay():
    listener = listening_sockets("127.0.0.1", 0, 1)[0]
    try:
        # What uvicorn --fd would make of it, and what the worker makes of it instead.
        assert socket.fromfd(listener.fileno(), socket.AF_UNIX, socket.SOCK_STREAM).family == socket.AF_UNIX
        sock = socket_from_descriptor(listener.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)
        assert (sock.family, sock.proto) == (socket.AF_INET, socket.IPPROTO_TCP)
        assert accepted_with_nodelay(sock)
    finally:
        listener.close()


def test_a_worker_runs_uvicorn_on_its_descriptor_read_as_tcp(monkeypatch):
    import uvicorn.main

    monkeypatch.setattr(socket, "fromfd", socket.fromfd)  # restored after the test
    listener = listening_sockets("127.0.0.1", 0, 1)[0]
    fd = listener.fileno()
    ran: list[tuple[list[str], int]] = []

    def uvicorn_main(args: list[str], prog_name: str) -> None:
        # As uvicorn's server reads `--fd`.
        sock = socket.fromfd(int(args[args.index("--fd") + 1]), socket.AF_UNIX, socket.SOCK_STREAM)
        ran.append((args, sock.family))
        sock.close()

    monkeypatch.setattr(uvicorn.main, "main", uvicorn_main)
    try:
        serve.run_worker(fd, APP, ["--no-access-log"], backlog=512)
    finally:
        listener.close()
    # One process a socket whatever WEB_CONCURRENCY says: uvicorn reads it for --workers.
    assert ran == [
        ([APP, "--fd", str(fd), "--backlog", "512", "--workers", "1", "--no-access-log"], socket.AF_INET)
    ]


def children_of(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def ask(port: int) -> tuple[int, str, int]:
    """One request on a new connection: (pid that answered, client address it saw, our port)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/")
        answer = connection.getresponse().read().decode()
        ours = connection.sock.getsockname()[1]
    finally:
        connection.close()
    pid, client = answer.split()
    return int(pid), client, ours


def answering_pids(port: int) -> set[int]:
    return {ask(port)[0] for _ in range(CONNECTIONS)}


def wait_for(condition, what: str, seconds: float = 60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = condition()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {seconds} s: {what}")


def launch(port: int, **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "incidentlib.serve", "--app", APP, "--workers", "2", "--host", "127.0.0.1",
         "--port", str(port), "--no-access-log", "--log-level", "warning"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        # uvicorn reads WEB_CONCURRENCY as --workers: each worker must still be one process.
        env={**os.environ, "WEB_CONCURRENCY": "3"},
        **popen,
    )  # fmt: skip


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def ignored_signals(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return int(line.split()[1], 16)
    raise AssertionError(f"no SigIgn for {pid}")


def workers_of(launcher: int) -> set[int]:
    """The launcher's workers, found by their command line: still found once the launcher is
    gone and they belong to init."""
    mark = f"\0--worker-parent\0{launcher}\0".encode()
    found = set()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if mark in cmdline.read_bytes():
                found.add(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()
    for pid in workers_of(process.pid):
        for doomed in (*children_of(pid), pid):  # uvicorn's own first, should it start some
            try:
                os.kill(doomed, signal.SIGKILL)
            except ProcessLookupError:
                pass


def run_to_the_end(port: int, app: str = APP) -> subprocess.CompletedProcess[str]:
    """The launcher with 2 workers of `app` on `port`, for a start that must fail."""
    return subprocess.run(
        [sys.executable, "-m", "incidentlib.serve", "--app", app, "--workers", "2", "--port", str(port)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def server() -> Iterator[tuple[subprocess.Popen[str], int]]:
    port = free_port()
    process = launch(port)
    try:
        wait_for(lambda: len(children_of(process.pid)) == 2 and answering_pids(port), "two workers answering")
        yield process, port
    finally:
        stop(process)


def test_both_workers_answer_and_see_the_clients_own_address(server):
    process, port = server
    workers = children_of(process.pid)
    answers = [ask(port) for _ in range(CONNECTIONS)]
    assert {pid for pid, _, _ in answers} == workers
    assert all(children_of(pid) == set() for pid in workers)  # no worker of its own
    assert workers_of(process.pid) == workers
    # A terminal's hangup reaches every process of the group: only the launcher takes it.
    assert all(ignored_signals(pid) & (1 << (signal.SIGHUP - 1)) for pid in workers)
    assert all(client == f"127.0.0.1:{ours}" for _, client, ours in answers)


def test_workers_keep_two_malloc_arenas_unless_told_otherwise(server, monkeypatch):
    process, _ = server
    for pid in children_of(process.pid):
        environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert b"MALLOC_ARENA_MAX=2" in environment
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert serve.worker_environment()["MALLOC_ARENA_MAX"] == "4"


def test_a_worker_that_dies_is_started_again_on_its_socket(server):
    process, port = server
    killed = min(children_of(process.pid))
    os.kill(killed, signal.SIGKILL)
    replaced = wait_for(
        lambda: (now := children_of(process.pid)) and len(now) == 2 and killed not in now and now,
        "a new worker in place of the killed one",
    )
    wait_for(lambda: answering_pids(port) == replaced, "both workers answering again")
    assert process.poll() is None


def test_sigterm_stops_every_worker_and_the_server_exits_0(server):
    process, _ = server
    workers = children_of(process.pid)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_sigterm_lets_a_request_in_flight_finish(server):
    process, port = server
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/slow")
    response = connection.getresponse()  # the headers: a worker is serving it
    process.send_signal(signal.SIGTERM)
    answer = response.read().decode()
    connection.close()
    assert answer.endswith(" slow")
    assert process.wait(timeout=60) == 0


def test_a_second_server_on_the_port_is_refused_not_joined(server):
    _, port = server
    second = run_to_the_end(port)
    assert second.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in second.stderr


def test_the_workers_stop_when_the_server_is_killed(server):
    process, port = server
    workers = children_of(process.pid)
    process.kill()
    process.wait()
    wait_for(lambda: not any(alive(pid) for pid in workers), "the orphaned workers gone")
    with pytest.raises(OSError):
        ask(port)


def test_a_worker_started_while_stopping_is_stopped_too():
    sockets = listening_sockets("127.0.0.1", 0, 1)
    workers = serve.Workers(APP, sockets, ["--log-level", "warning"])
    try:
        workers.stopping = True  # as when SIGTERM arrives between two starts
        workers.start(0)
        # SIGTERM ends it: before uvicorn takes the signal (-15) or through uvicorn (0).
        assert workers.children[0].wait(timeout=60) in (0, -signal.SIGTERM)
    finally:
        for child in workers.children.values():
            if child.poll() is None:
                child.kill()
                child.wait()
        sockets[0].close()


def test_under_nohup_sighup_does_not_stop_it():
    port = free_port()
    process = launch(port, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        wait_for(lambda: len(children_of(process.pid)) == 2 and answering_pids(port), "two workers answering")
        process.send_signal(signal.SIGHUP)
        time.sleep(1)
        assert process.poll() is None
        assert len(answering_pids(port)) == 2
    finally:
        stop(process)


def test_a_port_in_use_is_named_and_no_worker_starts():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_to_the_end(port)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "workers on" not in result.stderr


def test_workers_that_keep_dying_at_start_end_the_server_with_their_exit_code():
    result = run_to_the_end(free_port(), app="tests.reliability.no_such_module:application")
    # uvicorn exits 3 when it cannot import the application.
    assert 'Could not import module "tests.reliability.no_such_module"' in result.stderr
    assert result.returncode == 3
    assert "a worker exited 3 at start 3 times: stopping" in result.stderr


def test_reloading_is_left_to_plain_uvicorn_whether_asked_by_option_or_environment(monkeypatch):
    monkeypatch.delenv("UVICORN_RELOAD", raising=False)
    assert not serve.reloading(["--no-access-log"])
    assert serve.reloading(["--reload"])
    monkeypatch.setenv("UVICORN_RELOAD", "True")
    assert serve.reloading([])
    monkeypatch.setenv("UVICORN_RELOAD", "false")
    assert not serve.reloading([])
