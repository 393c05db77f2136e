"""Strict JSON reading for files people hand to the importer and bodies sent to the API.

Python's reader takes NaN and Infinity and turns 1e309 into infinity, which no database
column stores, and raises RecursionError on deep nesting; here all of them are a ValueError
with a message (JSONDecodeError, a ValueError too, for syntax). An integer with more digits
than Python converts (`sys.get_int_max_str_digits()`, 4,300 by default) is a
`NumberTooLong` naming its JSON path, not Python's advice to call
`sys.set_int_max_str_digits()`.

What the reader takes may still be too deep for the rest: `nesting_depth` counts without
recursion, and a value nested more than `MAX_DEPTH` levels is refused before any recursive
walk (jsonschema's, a deep copy) sees it.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


class NumberTooLong(ValueError):
    """An integer with more digits than Python reads: `path` (`$.facts.accelerator_count`)
    says where, `reason` how long it is and the limit."""

    def __init__(self, path: str, digits: int):
        self.path = path
        self.reason = (
            f"a number of {digits:,} digits is too long (at most {sys.get_int_max_str_digits():,} digits)"
        )
        super().__init__(f"{path}: {self.reason}")


class _TooLong:
    """Stands in, while parsing, for an integer Python would not convert."""

    def __init__(self, digits: int):
        self.digits = digits


def loads_checking_integers(loads: Callable[..., Any], text: str, **options: Any) -> Any:
    """`loads(text, parse_int=..., **options)`, raising NumberTooLong for the first integer
    (in document order) longer than Python converts. The parsed value is walked only when
    there is one."""
    too_long = False

    def parse_int(digits: str) -> Any:
        nonlocal too_long
        try:
            return int(digits)
        except ValueError:
            too_long = True
            return _TooLong(len(digits.lstrip("-")))

    value = loads(text, parse_int=parse_int, **options)
    if too_long:
        path, marker = next(_markers(value))
        raise NumberTooLong(path, marker.digits)
    return value


def _markers(value: Any) -> Iterator[tuple[str, _TooLong]]:
    """(JSON path, marker) of each `_TooLong` in `value`, in document order; without
    recursion, as deep as the parser read."""
    stack: list[tuple[str, Any]] = [("$", value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _TooLong):
            yield path, node
        elif isinstance(node, dict):
            stack.extend(reversed([(f"{path}.{key}", item) for key, item in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(f"{path}[{index}]", item) for index, item in enumerate(node)]))


def parse_json(text: str) -> Any:
    """`text` as JSON, strictly (see the module docstring). Raises ValueError (NumberTooLong
    for an integer too long)."""
    try:
        return loads_checking_integers(json.loads, text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("nested too deeply") from None


# Lists and objects a value may nest, itself included: a case file's `affected` nests 3
# (entries, each with a list of versions), no field of a case more than 5. jsonschema walks a
# value recursively, a few frames a level (`uniqueItems` compares items so), and raised
# RecursionError, a 500, on a value of a few hundred levels that the JSON reader took.
MAX_DEPTH = 32
NESTED_TOO_DEEPLY = f"nested too deeply: lists and objects more than {MAX_DEPTH} levels deep"


def nesting_depth(value: Any, limit: int) -> int:
    """How many lists and objects `value` nests (0 for a string or number), counted up to
    `limit + 1` and no further; without recursion. Scalars are not stacked: a third of the
    time of stacking every item, on a case document."""
    if not isinstance(value, (list, dict)):
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                break
        for item in node.values() if isinstance(node, dict) else node:
            if isinstance(item, (list, dict)):
                stack.append((item, depth + 1))
    return deepest
