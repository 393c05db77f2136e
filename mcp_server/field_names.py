"""`get_incident`'s `fields`: the document's top-level fields to keep, as a list or as
comma-separated text (`"root_cause,checks"`, as the API's query string takes it), read by
the parser of both doors (`selectors.parse_field_list`), which names the fields that would
work when one is unknown. So the names are plain text to pydantic and the enum is the
schema's only: pydantic's Literal error named the list item (`fields[0]`) in words of its
own, and took no text.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from incidents.document_model import case_model

# The document's top-level fields, in schema order: what `fields` takes.
DOCUMENT_FIELDS: tuple[str, ...] = tuple(case_model().top_level)
# Bounds that keep a pasted page out of the error quoting an unknown name.
MAX_FIELD_NAMES, MAX_FIELDS_TEXT = 50, 1000


def _field_names(value: Any) -> Any:
    """`fields` as the parser takes it (None, a text, a list of texts), in bounds that keep a
    pasted page out of the error quoting an unknown name; one error for any other shape
    (a union's errors named each branch: `fields[constrained-str]`)."""
    if value is None:
        return value
    texts = [value] if isinstance(value, str) else value if isinstance(value, list) else None
    if (
        texts is None
        or not all(isinstance(text, str) for text in texts)
        or len(texts) > MAX_FIELD_NAMES
        or sum(len(text) for text in texts) > MAX_FIELDS_TEXT
    ):
        raise PydanticCustomError(
            "field_names",
            f"must be field names, a list or comma-separated text (at most {MAX_FIELD_NAMES} names, "
            f"{MAX_FIELDS_TEXT} characters)",
        )
    return value


FieldNames = Annotated[
    str | list[str] | None,
    BeforeValidator(_field_names),
    WithJsonSchema(
        {
            "type": ["array", "string", "null"],
            "items": {"enum": list(DOCUMENT_FIELDS), "type": "string"},
            "description": 'Only these top-level fields (id, links always): a list or "a,b".',
        }
    ),
]
