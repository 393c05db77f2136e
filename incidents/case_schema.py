"""`case.schema.json` read once: its fields in order, the schema with `$ref`s inlined, and a
document spelled out the way the schema lays it out.

The schema file is the one list of a case document's fields. `document_model` binds each of
them to where a case keeps it; everything else reads the fields from there.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

JsonSchema = dict[str, Any]


def load_schema(path: str | Path | None = None) -> JsonSchema:
    """The schema file (`settings.CASE_SCHEMA_PATH` unless `path` is given) as written."""
    return json.loads(Path(str(path or settings.CASE_SCHEMA_PATH)).read_text(encoding="utf-8"))


def standalone(schema: JsonSchema) -> JsonSchema:
    """`schema` with every `#/$defs/...` reference replaced by its definition (the case
    schema has no cycles) and the file-level `$schema`, `$id` and `$defs` dropped, so it
    stands alone inside an OpenAPI document or a tool listing."""
    definitions = schema.get("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                merged = {
                    **copy.deepcopy(definitions[ref.removeprefix("#/$defs/")]),
                    **{k: v for k, v in node.items() if k != "$ref"},
                }
                return inline(merged)
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    return inline({k: v for k, v in schema.items() if k not in ("$schema", "$id", "$defs")})


@dataclass(frozen=True)
class SchemaField:
    """A field of the document: a top-level property, or a property of a top-level object
    (`facts.severity`). Arrays of objects (`sources`, `scale_tables`) are one field each."""

    path: str  # "title", "facts.severity"
    node: JsonSchema  # its schema, references inlined

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]

    @property
    def parent(self) -> str:
        return self.path.rpartition(".")[0]

    @property
    def json_path(self) -> str:
        return f"$.{self.path}"


def is_object(node: JsonSchema) -> bool:
    return "properties" in node


def is_array(node: JsonSchema) -> bool:
    kind = node.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def schema_fields(schema: JsonSchema) -> tuple[SchemaField, ...]:
    """The document's fields in schema order (an object's fields where the object stands)."""
    fields = []
    for name, node in schema["properties"].items():
        if is_object(node):
            fields += [SchemaField(f"{name}.{sub}", child) for sub, child in node["properties"].items()]
        else:
            fields.append(SchemaField(name, node))
    return tuple(fields)


_MISSING = object()


def spell_out(value: Any, node: JsonSchema) -> Any:
    """`value` laid out as `node` lays it out: every property of an object present, in
    schema order (an absent array as [], an absent object spelled out, anything else as
    None), recursively. Two documents that mean the same compare equal once spelled out."""
    return speller(node)(value)


def speller(node: JsonSchema) -> Callable[[Any], Any]:
    """`spell_out` for `node`, with the schema read once: a function of the value. Import
    spells out every document; reading the schema's nodes again for each of its values
    was a twentieth of a first import."""
    if is_object(node):
        children = [(key, speller(child)) for key, child in node["properties"].items()]

        def spell_object(value: Any) -> Any:
            given = value if isinstance(value, dict) else {}
            return {key: spell(given.get(key, _MISSING)) for key, spell in children}

        return spell_object
    empty: list[Any] | None = [] if is_array(node) else None
    if empty is not None and "items" in node:
        spell_item = speller(node["items"])

        def spell_array(value: Any) -> Any:
            if value is _MISSING or value is None:
                return []
            return [spell_item(item) for item in value]

        return spell_array

    def spell_value(value: Any) -> Any:
        if value is _MISSING or value is None:
            return [] if empty is not None else None
        if isinstance(value, dict):
            return dict(value)
        return value

    return spell_value
