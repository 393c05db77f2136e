"""The one rule for a whole number given as text, on every door: `page`, `limit` and the
other integer parameters of the API, the `min_`/`max_` bounds and `year` of the list parser,
the pages' own query strings, and text sent for an integer argument of an MCP tool.

In JSON (a body field of the API, an argument of an MCP tool) a whole number is a JSON
integer or such text, `"limit": 5` and `"limit": "5"` alike (`json_whole_number`): MCP
clients often send numbers as strings, and a JSON body and a query string should not
disagree about "5". Never `true`/`false`, and never a number with a fraction (`2.5`; `5.0`
is 5, as JSON Schema's `integer` has it).

A whole number is written with the digits 0-9, an optional leading minus (so a negative one
is refused as out of range, naming the range) and blanks around it. `int()` alone also reads
"٣" (Arabic-Indic three), "３" (full-width), "1_000" and "+3": engineers type 0-9, and a
digit of another script is a paste far more often than an intent, so it is refused with a
detail saying which digits count, and the parameter named by the door that reports it.
"""

from __future__ import annotations

import math
import re

# `re.ASCII`: without it `\d` matches every script's decimal digits, which is the point here.
_WHOLE_NUMBER = re.compile(r"-?\d+", re.ASCII)
# The same rule as a JSON Schema pattern (blanks around it allowed), for the API's schema.
WHOLE_NUMBER_PATTERN = r"^\s*-?[0-9]+\s*$"
# The same or blank, for an optional field, where blank is not given (`params.is_blank`).
OPTIONAL_WHOLE_NUMBER_PATTERN = r"^\s*(-?[0-9]+\s*)?$"
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


def integer_detail(text: str, *, minimum: int, maximum: int) -> str | None:
    """What an integer parameter of a query string given as `text` must be (`page=0`: `must
    be between 1 and 100000`; `page=two`: `must be a whole number`), in the words of every
    door that reads one, the door naming the parameter; None when `text` is such a number."""
    value = whole_number(text)
    if value is None:
        return number_detail(text, "must be a whole number")
    if not minimum <= value <= maximum:
        return f"must be between {minimum} and {maximum}"
    return None


def json_whole_number(value: object) -> int | None:
    """A whole number given in JSON: an integer, a number without a fraction (`5.0`), or text
    `whole_number` reads (`"5"`, `" 5 "`); None for anything else (`true`, `2.5`, `"٣"`,
    `"five"`, a list, null)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, str):
        return whole_number(value)
    return None


def whole_number_wanted(
    given: object, *, minimum: int | None, maximum: int | None, example: int | None
) -> str:
    """What to send instead of a `given` value that `json_whole_number` refused, in the
    words of both JSON doors (an API body field, an MCP argument): `must be a whole number
    from 1 to 50, such as 10 or "10"` (digits 0-9 only, when `given` holds another
    script's digit). The caller names the field or argument and quotes `given`."""
    detail = "must be a whole number"
    if minimum is not None and maximum is not None:
        detail += f" from {minimum} to {maximum}"
    if isinstance(given, str):
        detail = number_detail(given, detail)
    shown = example if example is not None else minimum
    if shown is not None:
        detail += f', such as {shown} or "{shown}"'
    return detail
