"""The one rule for a whole number given as text, on every door: `page`, `limit` and the
other integer parameters of the API, the `min_`/`max_` bounds and `year` of the list parser,
the pages' own query strings, and text sent for an integer argument of an MCP tool.

A whole number is written with the digits 0-9, an optional leading minus (so a negative one
is refused as out of range, naming the range) and blanks around it. `int()` alone also reads
"٣" (Arabic-Indic three), "３" (full-width), "1_000" and "+3": engineers type 0-9, and a
digit of another script is a paste far more often than an intent, so it is refused with a
detail saying which digits count, and the parameter named by the door that reports it.
"""

from __future__ import annotations

import re

# `re.ASCII`: without it `\d` matches every script's decimal digits, which is the point here.
_WHOLE_NUMBER = re.compile(r"-?\d+", re.ASCII)
# Beyond this many digits `int()` refuses the text (Python's guard against slow
# conversions); no parameter's range comes near it.
MAX_DIGITS = 4300
DIGITS_NOTE = "digits 0-9 only"


def whole_number(text: str) -> int | None:
    """`text` as an int when it is a whole number under the rule above, else None."""
    text = text.strip()
    if len(text) > MAX_DIGITS or not _WHOLE_NUMBER.fullmatch(text):
        return None
    return int(text)


def number_detail(text: str, detail: str) -> str:
    """`detail` (what the parameter must be) for a `text` that `whole_number` refused, saying
    that only 0-9 count when `text` holds a digit of another script ("٣", "３", "²")."""
    if any(char.isdigit() and not char.isascii() for char in text):
        return f"{detail} ({DIGITS_NOTE})"
    return detail
