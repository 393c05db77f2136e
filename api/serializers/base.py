"""The base of every answer's serializer, and the problem details every error answer is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers


class ResponseSerializer(serializers.Serializer):
    """Builds one answer from gathered values: every declared field, in order; a field that
    is not required is left out when the values do not hold it (rather than given as null),
    and a required one missing is an error."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        answer: dict[str, Any] = {}
        for field in self._readable_fields:
            if not field.required and isinstance(instance, Mapping) and field.source not in instance:
                continue
            value = field.get_attribute(instance)
            answer[str(field.field_name)] = None if value is None else field.to_representation(value)
        return answer


class ParameterErrorSerializer(serializers.Serializer):
    """One bad parameter or body field."""

    parameter = serializers.CharField(
        help_text="Name of the bad query parameter, path parameter or body field "
        "(`body` for the body as a whole)."
    )
    detail = serializers.CharField(help_text="What is wrong with it.")
    value = serializers.CharField(required=False, help_text="The value given, when useful.")
    suggestions = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Closest accepted values (for unknown filter values and choices).",
    )


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details, used for every 4xx and 5xx answer."""

    type = serializers.CharField(help_text="Always `about:blank`: `title` says what happened.")
    title = serializers.CharField(help_text="The HTTP status phrase, e.g. `Bad Request`.")
    status = serializers.IntegerField(help_text="The HTTP status code.")
    detail = serializers.CharField(help_text="What went wrong, for a person.")
    instance = serializers.CharField(required=False, help_text="The request path.")
    # A response field named like Serializer.errors; this class only describes output.
    errors = ParameterErrorSerializer(  # type: ignore[assignment]
        many=True, required=False, help_text="One entry per bad parameter or body field."
    )
    scope = serializers.CharField(
        required=False,
        help_text="429 only: the limit reached: `api`, `api-heavy` (match, triage, export), "
        "`proposals` or `proposals-refused`.",
    )
    rate = serializers.CharField(required=False, help_text='429 only: that limit, e.g. "30/minute".')
    retry_after = serializers.IntegerField(
        required=False, help_text="429 only: seconds to wait, as the `Retry-After` header says."
    )
