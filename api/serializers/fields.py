"""Fields of the request bodies: JSON values taken as sent, nothing coerced, and refusals that
say what came and what would work, in the words every door uses."""

from __future__ import annotations

import json
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from incidents.selectors import MAX_QUERY_CHARS, json_whole_number, whole_number_wanted
from incidents.selectors.numbers import OPTIONAL_WHOLE_NUMBER_PATTERN, WHOLE_NUMBER_PATTERN
from incidents.selectors.params import query_too_long


def shown_json(data: Any) -> str:
    """`data` as the "(got ...)" of a body field's refusal quotes it: JSON, cut to 40
    characters (`5`, `"five"`, `[1, 2]`)."""
    shown = json.dumps(data, ensure_ascii=False, default=str)
    return shown if len(shown) <= 40 else shown[:39] + "…"


class StrictCharField(serializers.CharField):
    """A JSON string, nothing coerced into one (DRF would turn `0` into `"0"`); anything
    else is refused saying what came, as every body field's refusal does: `must be a
    string (got 5)`."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(f"must be a string (got {shown_json(data)})")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A whole number by the rule of every JSON door (`selectors.json_whole_number`, as MCP
    tools read their integer arguments): a JSON integer or its digits 0-9 as text, `5`,
    `"5"` and `5.0` alike; never `true`, `2.5`, `"٣"` or `"five"`. A refusal says what
    would work, worded as every parameter error (`api.errors`: a phrase after the name):
    `must be a whole number from 1 to 50, such as 10 or "10" (got "five")`, and one out of
    range `must be between 1 and 50 (got 80)`."""

    def __init__(self, **kwargs: Any):
        low, high = kwargs.get("min_value"), kwargs.get("max_value")
        if low is not None and high is not None:
            # Django's validators fill in `%(value)s`; DRF formats `{...}` first (none here).
            out_of_range = f"must be between {low} and {high} (got %(value)s)"
            kwargs["error_messages"] = {
                "min_value": out_of_range,
                "max_value": out_of_range,
                **kwargs.get("error_messages", {}),
            }
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        number = json_whole_number(data)
        if number is None:
            example = self.default if isinstance(self.default, int) else None
            wanted = whole_number_wanted(
                data, minimum=self.min_value, maximum=self.max_value, example=example
            )
            raise serializers.ValidationError(f"{wanted} (got {shown_json(data)})")
        return number


class StrictIntegerSchema(OpenApiSerializerFieldExtension):
    """`StrictIntegerField` in the OpenAPI schema: in a request, the integer (with its bounds)
    or its digits as text (`"5"`), as the field reads it; in an answer, an integer."""

    target_class = StrictIntegerField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        integer = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if direction != "request":
            return integer
        # anyOf, not oneOf: a nullable field's null would match two branches. The field's
        # description and default go on the whole (drf-spectacular adds them there).
        # An optional field may be blank: not given (`api.params.without_blank_optionals`).
        bounded = {k: v for k, v in integer.items() if k not in ("description", "default")}
        pattern = WHOLE_NUMBER_PATTERN if self.target.required else OPTIONAL_WHOLE_NUMBER_PATTERN
        return {"anyOf": [bounded, {"type": "string", "pattern": pattern}]}


class NamedChoiceField(serializers.ChoiceField):
    """A choice whose refusal names what would work, in MCP's words (`job must be one of
    training, inference (got "gaming")`): DRF's own said only `"gaming" is not a valid
    choice.`, leaving the caller to find the choices in the schema."""

    default_error_messages = {"invalid_choice": 'must be one of {choices} (got "{input}")'}

    SHOWN_CHARS = 40  # of the value quoted back

    def fail(self, key: str, **kwargs: Any) -> None:  # type: ignore[override]
        if key == "invalid_choice":
            kwargs["choices"] = ", ".join(str(choice) for choice in self.choices)
            shown = str(kwargs.get("input", ""))
            if len(shown) > self.SHOWN_CHARS:
                kwargs["input"] = shown[: self.SHOWN_CHARS - 1] + "…"
        super().fail(key, **kwargs)


class SearchTextField(StrictCharField):
    """Text searched as `q` is: at most `MAX_QUERY_CHARS` characters (stated in the schema),
    a longer one refused in the words of the parser the search doors share
    (`selectors.params.query_too_long`), not in DRF's own."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=MAX_QUERY_CHARS, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        # Before the field's validators (DRF's own max_length message), which the schema reads.
        value = super().to_internal_value(data)
        if len(value) > MAX_QUERY_CHARS:
            raise serializers.ValidationError(query_too_long(len(value)))
        return value
