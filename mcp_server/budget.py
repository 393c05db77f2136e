"""Byte budgets for tool results: a result over its budget is cut at an item boundary.

Size is the result's compact JSON in UTF-8 (what the text content carries; the structured
content is the same JSON). The cut keeps the longest prefix of a list that fits, sets
`truncated: true` and whatever the caller's `mark` adds (a cursor, a note saying how to get
the rest), so nothing is cut in the middle of an item.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def json_size(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON (a pydantic model is dumped first)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def fit_list(model: M, field: str, budget: int, mark: Callable[[int], dict[str, Any]]) -> M:
    """`model` with its list `field` cut to the longest prefix that keeps it within `budget`.

    `mark(kept)` gives the fields that say the result is cut and how to get the rest; it is
    applied (with `truncated=True`) only when something was cut. Raises ValueError when not
    even an empty list fits, which would be a bug in the budget, not bad input.
    """
    if json_size(model) <= budget:
        return model
    items = list(getattr(model, field))

    def cut(kept: int) -> M:
        return model.model_copy(update={field: items[:kept], "truncated": True, **mark(kept)})

    low, high = 0, len(items) - 1  # the largest prefix that fits lies in [low, high]
    if json_size(cut(0)) > budget:
        raise ValueError(f"{type(model).__name__} does not fit {budget} bytes even without {field}")
    while low < high:
        middle = (low + high + 1) // 2
        if json_size(cut(middle)) <= budget:
            low = middle
        else:
            high = middle - 1
    return cut(low)


def fit_fields(
    document: dict[str, Any], budget: int, keep: tuple[str, ...]
) -> tuple[dict[str, Any], list[str]]:
    """`document` without its last top-level fields (never those in `keep`) until its JSON
    fits `budget` with room for the truncation marker; the names left out, in order."""
    fields = list(document)
    omitted: list[str] = []
    result = dict(document)
    while json_size(result) > budget:
        droppable = [name for name in reversed(fields) if name in result and name not in keep]
        if not droppable:
            break
        omitted.insert(0, droppable[0])
        del result[droppable[0]]
        result["truncated"], result["omitted_fields"] = True, omitted
    return result, omitted
