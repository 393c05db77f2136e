"""Strict JSON reading for files people hand to the importer.

Python's reader takes NaN and Infinity and turns 1e309 into infinity, which no database
column stores, and raises RecursionError on deep nesting; here all of them are a ValueError
with a message (JSONDecodeError, a ValueError too, for syntax).
"""

from __future__ import annotations

import json
import math
from typing import Any


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def parse_json(text: str) -> Any:
    """`text` as JSON, strictly (see the module docstring). Raises ValueError."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("nested too deeply") from None
