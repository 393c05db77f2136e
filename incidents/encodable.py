"""Echoing user input back safely: text that UTF-8 can always encode.

JSON (a request body, an MCP argument) can spell a lone surrogate (`"\\ud800"`), which Python
keeps in a `str` and no UTF-8 encoder accepts: echoed into an answer, it turns a 400 into a
500 when the renderer encodes it. Every problem document (`api.errors.problem_body`) and
every MCP tool error (`mcp_server.toolkit.error_result`) passes what it echoes through
`encodable`, which writes such a code point as its escape (`\\ud800`) so the reader still
sees what was sent.
"""

from __future__ import annotations

from typing import Any


def encodable(value: Any) -> Any:
    """`value` with every lone surrogate in a string (or a dict key, a list item, at any
    depth) written as its backslash escape; other values unchanged."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {encodable(key): encodable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [encodable(item) for item in value]
    return value
