"""Line breaks are stored as `\\n`, whichever door the text came through.

Browsers send a textarea's line breaks as CRLF (the HTML standard says so), a file saved on
Windows holds them, an old Mac or a script may send a lone CR. Stored as sent, an admin form
saved untouched would rewrite every multi-paragraph field (a history row whose before and
after look alike), and export would no longer give back the files imported. Case documents
are normalised once, by import's `services.Preparer`, which every write of a case goes
through (import, restore, the admin, the write API, proposals); texts kept outside a case
document (a proposal's text, a retraction or decline reason, a term's description) by the
service that writes them. Forms read textareas with `MultilineField`, so that a form sent
back untouched has no changed field either.
"""

from __future__ import annotations

from typing import Any

import orjson
from django import forms


def unix_newlines(text: str) -> str:
    """`text` with each CRLF and lone CR written as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def with_unix_newlines(value: Any) -> Any:
    """A JSON value (a case document) with `unix_newlines` applied to every string in it
    (object keys are names, not text, and stay). The value itself when no string holds a
    CR, decided in C: walking every string of every document would slow a large import."""
    try:
        plain = b"\\r" not in orjson.dumps(value)
    except TypeError:  # not encodable by orjson (a lone surrogate): walk it
        plain = False
    return value if plain else _walk(value)


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return unix_newlines(value)
    if isinstance(value, dict):
        return {key: _walk(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_walk(item) for item in value]
    return value


class MultilineField(forms.CharField):
    """A textarea's text with `\\n` line breaks, before its length is checked (a break
    counts as one character) and before `has_changed` compares it with the initial value."""

    def to_python(self, value: Any) -> Any:
        text = super().to_python(value)
        return unix_newlines(text) if isinstance(text, str) else text
