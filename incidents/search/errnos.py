"""C library error numbers: `errno 28` is ENOSPC, "No space left on device".

A log or a person may give the number (`OSError: [Errno 28]`, `errno=110`), the symbolic
name (`ETIMEDOUT`) or the message (`Connection timed out`); cases mostly say the name or the
message. The table is the C library's, as Python's `errno` module and `os.strerror` expose
it (Linux numbering on the servers this runs on), not a list kept by hand.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Errno:
    number: int  # 28
    name: str  # ENOSPC
    message: str  # No space left on device


def _message(number: int) -> str:
    try:
        return os.strerror(number)
    except ValueError:
        return ""


_BY_NUMBER = {number: Errno(number, name, _message(number)) for number, name in errno.errorcode.items()}
_BY_NAME = {e.name.lower(): e for e in _BY_NUMBER.values()}


def by_number(number: str | int) -> Errno | None:
    """The error with this number (`"28"` or 28), or None if the C library has none."""
    try:
        return _BY_NUMBER.get(int(number))
    except ValueError:
        return None


def by_name(name: str) -> Errno | None:
    """The error with this symbolic name, any case (`ENOSPC`, `enospc`), or None."""
    return _BY_NAME.get(name.lower())
