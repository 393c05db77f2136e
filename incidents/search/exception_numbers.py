"""`OSError 28` is errno 28: an exception whose number is a C library error number.

Python prints `OSError: [Errno 28] No space left on device`, and people type it back as
`OSError 28` (or `OSError(28)`). `OSError` alone is a generic exception name that tells no
case from another (`patterns.GENERIC_EXCEPTION_NAMES`), so that query listed no case; with
its number it is as specific as `errno 28`, which the query reads as ENOSPC and its message
(`query.errno_alternatives`). Planning rewrites such a name and number into `errno N` before
the generic names are left out (`planning.without_words`).
"""

from __future__ import annotations

import dataclasses

from . import errnos
from .query import Atom, ParsedQuery

# The exception types whose first argument is an error number (`IOError` and
# `EnvironmentError` are `OSError`'s former names), in any case (`oserror 28`).
ERRNO_EXCEPTIONS = frozenset({"oserror", "ioerror", "environmenterror"})


def _number_after_name(atoms: tuple[Atom, ...]) -> tuple[str, errnos.Errno] | None:
    """(the name as typed, its error) when `atoms` spell an errno exception and a number the
    C library knows (`OSError` `28`, or the phrase `OSError(28)`), else None."""
    found = tuple(word for atom in atoms for word in atom.words)
    if len(found) != 2 or found[0].lower() not in ERRNO_EXCEPTIONS or not found[1].isdigit():
        return None
    if any(atom.quoted for atom in atoms):
        return None  # quoted: searched as typed
    error = errnos.by_number(found[1])
    return (found[0], error) if error is not None else None


def read_exception_numbers(parsed: ParsedQuery) -> tuple[ParsedQuery, list[str]]:
    """`parsed` with each errno exception followed by its number (`OSError 28`, typed as two
    words or as one token `OSError(28)`) read as the error number (`errno 28`), and a note
    per such rewrite saying how it was read; `parsed` unchanged (and no note) when there is
    none. A number the C library does not know (`OSError 999`) is left as typed."""
    groups: list[list[Atom]] = []
    notes: list[str] = []
    i = 0
    while i < len(parsed.groups):
        group = parsed.groups[i]
        taken = 1
        read = _number_after_name((group[0],)) if len(group) == 1 else None
        if read is None and len(group) == 1 and i + 1 < len(parsed.groups) and len(parsed.groups[i + 1]) == 1:
            read = _number_after_name((group[0], parsed.groups[i + 1][0]))
            taken = 2
        if read is None:
            groups.append(group)
            i += 1
            continue
        name, error = read
        groups.append([Atom(("errno", str(error.number)))])
        notes.append(f"{name} {error.number} read as errno {error.number}: {error.name}, {error.message}.")
        i += taken
    if not notes:
        return parsed, []
    return dataclasses.replace(parsed, groups=groups), notes
