"""Opaque page cursors: base64url of `{"o": offset, "k": key}`.

`key` fingerprints the query, filters and sort a cursor was issued for, so a cursor from
one query cannot silently page through another. Decoding checks everything and raises
`ToolError` with what to do instead.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

MAX_OFFSET = 100_000


def query_key(**params: Any) -> str:
    """A short stable fingerprint of the parameters a result depends on."""
    text = json.dumps(params, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def encode_cursor(offset: int, key: str) -> str:
    raw = json.dumps({"o": offset, "k": key}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, key: str) -> int:
    """The offset a cursor points at (0 without a cursor).

    Raises ToolError when the cursor is malformed or was issued for other parameters.
    """
    if cursor is None or cursor == "":
        return 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        offset, cursor_key = data["o"], data["k"]
    except (ValueError, UnicodeError, binascii.Error, KeyError, TypeError) as exc:
        raise ToolError(
            "cursor is not valid: pass the next_cursor of the previous call unchanged, "
            "or leave cursor out to start at the first page"
        ) from exc
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset <= MAX_OFFSET:
        raise ToolError("cursor is not valid: leave cursor out to start at the first page")
    if cursor_key != key:
        raise ToolError(
            "cursor was issued for a different query, filters or sort: repeat the call with "
            "the same arguments as the one that returned it, or leave cursor out"
        )
    return offset
