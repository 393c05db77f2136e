"""stdio for `manage.py mcp_stdio` with malformed input answered, not dropped.

The SDK's stdio transport silently drops a line that is not a JSON-RPC message. Here each
line is checked first: one that is not JSON gets a -32700 error on stdout, one that is not
a single JSON-RPC 2.0 message (a batch array, `{"hello": 1}`, `"jsonrpc": "1.0"`, a null
id) a -32600 error naming what is wrong, and either way one line on stderr; good lines
go on to the SDK. The SDK serves `sys.stdin`/`sys.stdout` in place when they are not the
process's own descriptors (its documented behaviour), so the command installs these.
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import Any, BinaryIO

from .http_guard import INVALID_REQUEST, PARSE_ERROR, envelope_problem


def _error(code: int, message: str, request_id: Any = None) -> bytes:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(body, separators=(",", ":")).encode() + b"\n"


def line_problem(line: bytes) -> bytes | None:
    """The JSON-RPC error answering `line`, or None when it is one good message."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return _error(PARSE_ERROR, "Parse error: the line is not JSON")
    if (problem := envelope_problem(message)) is None:
        return None
    request_id = message.get("id") if isinstance(message, dict) else None
    valid = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    return _error(INVALID_REQUEST, problem, request_id if valid else None)


class CheckedStdin(io.RawIOBase):
    """The lines of `source` that are JSON-RPC messages; the others are answered on `wire`
    and reported on `log`."""

    def __init__(self, source: BinaryIO, wire: BinaryIO, log: Any) -> None:
        self.source, self.wire, self.log = source, wire, log
        self.pending = b""
        self.line_number = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            line = self.source.readline()
            if not line:
                return 0
            self.line_number += 1
            if not line.strip():
                continue
            answer = line_problem(line)
            if answer is None:
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
    wire = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    checked = CheckedStdin(sys.stdin.buffer, wire, sys.stderr)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(checked), encoding="utf-8", errors="replace")
    sys.stdout = io.TextIOWrapper(wire, encoding="utf-8", write_through=True)
