"""stdio for `manage.py mcp_stdio` with malformed input answered, not dropped.

The SDK's stdio transport silently drops a line that is not a JSON-RPC message. Here each
line is checked first: one that is not JSON gets a -32700 error on stdout, one that is not
a single JSON-RPC 2.0 message (a batch array, `{"hello": 1}`, `"jsonrpc": "1.0"`, a null
id) a -32600 error naming what is wrong, and either way one line on stderr; good lines
go on to the SDK. The SDK serves `sys.stdin`/`sys.stdout` in place when they are not the
process's own descriptors (its documented behaviour), so the command installs these.

When the input ends, the SDK stops the session at once, dropping requests still being
served (a script piping a few requests and closing stdin got no answer to the slow ones).
So the end of input is passed on only once every request read has been answered, or after
`EOF_GRACE_SECONDS`.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from typing import Any, BinaryIO

from .http_guard import INVALID_REQUEST, PARSE_ERROR, envelope_problem

EOF_GRACE_SECONDS = 120.0


class InFlight:
    """Ids of the requests read and not yet answered; `wait_until_answered` blocks until none."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.changed = threading.Condition()

    def read(self, message: Any) -> None:
        if isinstance(message, dict) and "method" in message and "id" in message:
            with self.changed:
                self.ids.add(json.dumps(message["id"]))

    def answered(self, message: Any) -> None:
        if isinstance(message, dict) and "id" in message and ("result" in message or "error" in message):
            with self.changed:
                self.ids.discard(json.dumps(message["id"]))
                self.changed.notify_all()

    def wait_until_answered(self, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: not self.ids, timeout=timeout)


class AnsweringWire(io.RawIOBase):
    """The protocol's output: every write goes to `target` at once; complete lines that are
    answers are checked off `in_flight`."""

    def __init__(self, target: BinaryIO, in_flight: InFlight) -> None:
        self.target, self.in_flight = target, in_flight
        self.partial = b""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.target.write(chunk)
        self.target.flush()
        *lines, self.partial = (self.partial + chunk).split(b"\n")
        for line in lines:
            try:
                self.in_flight.answered(json.loads(line))
            except ValueError:
                pass
        return len(chunk)


def _error(code: int, message: str, request_id: Any = None) -> bytes:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(body, separators=(",", ":")).encode() + b"\n"


def checked_message(line: bytes) -> tuple[Any, bytes | None]:
    """`(message, None)` when `line` is one good JSON-RPC message, else `(None, the error
    answering it)`; the line is parsed once."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None, _error(PARSE_ERROR, "Parse error: the line is not JSON")
    if (problem := envelope_problem(message)) is None:
        return message, None
    request_id = message.get("id") if isinstance(message, dict) else None
    valid = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    return None, _error(INVALID_REQUEST, problem, request_id if valid else None)


class CheckedStdin(io.RawIOBase):
    """The lines of `source` that are JSON-RPC messages; the others are answered on `wire`
    and reported on `log`."""

    def __init__(
        self, source: BinaryIO, wire: BinaryIO | io.RawIOBase, log: Any, in_flight: InFlight | None = None
    ) -> None:
        self.source, self.wire, self.log = source, wire, log
        self.in_flight = in_flight or InFlight()
        self.pending = b""
        self.line_number = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            line = self.source.readline()
            if not line:
                if not self.in_flight.wait_until_answered(EOF_GRACE_SECONDS):
                    self.log.write("mcp_stdio: input ended with requests still unanswered\n")
                    self.log.flush()
                return 0
            self.line_number += 1
            if not line.strip():
                continue
            message, answer = checked_message(line)
            if answer is None:
                self.in_flight.read(message)
                self.pending = line
                continue
            self.wire.write(answer)
            self.wire.flush()
            reason = json.loads(answer)["error"]["message"]
            self.log.write(f"mcp_stdio: input line {self.line_number} refused: {reason}\n")
            self.log.flush()
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        return size


def install_checked_stdio() -> None:
    """Point `sys.stdin`/`sys.stdout` at the checked input and the protocol's output.

    stdout gets its own duplicate of descriptor 1 (shared by the SDK and the error answers,
    one whole line per write); descriptor 1 then goes to stderr, so a stray print can
    never corrupt the protocol stream.
    """
    in_flight = InFlight()
    wire = AnsweringWire(os.fdopen(os.dup(sys.stdout.fileno()), "wb"), in_flight)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    checked = CheckedStdin(sys.stdin.buffer, wire, sys.stderr, in_flight)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(checked), encoding="utf-8", errors="replace")
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(wire), encoding="utf-8", write_through=True)
