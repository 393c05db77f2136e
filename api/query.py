"""Query parameters declared once: each parameter's name, type, bounds and description give
both what a view's reader accepts and parses and the `OpenApiParameter` its schema lists.

A view declares its `QueryParams`, lists `QUERY.openapi()` in its `extend_schema` and reads
with `QUERY.reader(request.query_params)`: the reader refuses any parameter not declared,
and `reader.value(name)` parses a declared one with the type and bounds the schema states.
A parameter given blank (`?sort=`) is not given (`selectors.is_blank`); the schema says so
with `allowEmptyValue` on every optional query parameter (`schema.allow_empty_values`).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.http import QueryDict
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from incidents.selectors import FILTER_PARAMS, is_blank

from .params import ParamReader
from .schema import filter_parameters


@dataclass(frozen=True)
class QueryParam:
    """One parameter taken as given: its one value, or None when absent (a repeat is refused).
    `options` are further `OpenApiParameter` options (enum, deprecated ...)."""

    openapi_type: ClassVar[Any] = OpenApiTypes.STR

    name: str
    description: str
    options: tuple[tuple[str, Any], ...] = field(default=(), kw_only=True)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name,)

    def describe(self) -> str:
        return self.description

    def openapi(self) -> list[OpenApiParameter]:
        return [
            OpenApiParameter(
                self.name,
                self.openapi_type,
                required=False,
                description=self.describe(),
                **self.openapi_options(),
            )
        ]

    def openapi_options(self) -> dict[str, Any]:
        return dict(self.options)

    def read(self, reader: ParamReader) -> Any:
        return reader.single(self.name)


@dataclass(frozen=True)
class Text(QueryParam):
    """One text value, at most `max_length` characters when that is given."""

    max_length: int | None = field(default=None, kw_only=True)

    def read(self, reader: ParamReader) -> str | None:
        if self.max_length is None:
            return reader.single(self.name)
        return reader.text(self.name, max_length=self.max_length)


@dataclass(frozen=True)
class Integer(QueryParam):
    """A whole number from `minimum` to `maximum`, `default` when absent. The description may
    name `{minimum}`, `{maximum}` and `{default}`, so the text states the bounds that apply."""

    openapi_type = OpenApiTypes.INT

    default: int = field(kw_only=True)
    minimum: int = field(kw_only=True)
    maximum: int = field(kw_only=True)

    def describe(self) -> str:
        return self.description.format(minimum=self.minimum, maximum=self.maximum, default=self.default)

    def read(self, reader: ParamReader) -> int:
        return reader.integer(self.name, default=self.default, minimum=self.minimum, maximum=self.maximum)


@dataclass(frozen=True)
class Flag(QueryParam):
    """`true` or `false`, `default` when absent; anything else is refused (400)."""

    openapi_type = OpenApiTypes.BOOL

    default: bool = field(kw_only=True)

    def openapi_options(self) -> dict[str, Any]:
        return {**super().openapi_options(), "default": self.default}

    def read(self, reader: ParamReader) -> bool:
        default = "true" if self.default else "false"
        return reader.choice(self.name, ("true", "false"), default=default) == "true"


@dataclass(frozen=True)
class Date(QueryParam):
    """A date as YYYY-MM-DD."""

    openapi_type = OpenApiTypes.DATE

    def read(self, reader: ParamReader) -> datetime.date | None:
        return reader.date(self.name)


@dataclass(frozen=True)
class Timestamp(QueryParam):
    """An ISO 8601 date-time, UTC when it has no offset."""

    openapi_type = OpenApiTypes.DATETIME

    def read(self, reader: ParamReader) -> datetime.datetime | None:
        return reader.timestamp(self.name)


@dataclass(frozen=True)
class FieldList(QueryParam):
    """Comma-separated names out of `choices` (listed as the schema's enum); None when absent."""

    choices: tuple[str, ...] = field(default=(), kw_only=True)

    def openapi_options(self) -> dict[str, Any]:
        return {"many": True, "explode": False, "enum": list(self.choices)}

    def read(self, reader: ParamReader) -> list[str] | None:
        return reader.field_list(self.name, self.choices)


@dataclass(frozen=True)
class Repeated(QueryParam):
    """A repeatable parameter: its first `max_items` values of at most `max_length` characters
    (longer ones are left out)."""

    max_length: int = field(kw_only=True)
    max_items: int = field(kw_only=True)

    def openapi(self) -> list[OpenApiParameter]:
        return [
            OpenApiParameter(
                self.name, self.openapi_type, many=True, required=False, description=self.describe()
            )
        ]

    def read(self, reader: ParamReader) -> list[str]:
        values = [v for v in reader.query.getlist(self.name) if not is_blank(v)]  # blank: not given
        return [v for v in values if len(v) <= self.max_length][: self.max_items]


class FacetFilters:
    """Every filter of the facet registry, its `exclude_` twin and the numeric bounds
    (`selectors.FILTER_PARAMS`, described by `schema.filter_parameters`); read by
    `selectors.parse_search` / `parse_filters`, not by `QueryReader.value`."""

    names = FILTER_PARAMS

    def openapi(self) -> list[OpenApiParameter]:
        return filter_parameters()


class QueryReader(ParamReader):
    """A `ParamReader` accepting exactly the declared parameters and parsing each as declared."""

    def __init__(self, query: QueryDict, declared: QueryParams):
        super().__init__(query, allowed=declared.names)
        self.declared = {p.name: p for p in declared.params if isinstance(p, QueryParam)}

    def value(self, name: str) -> Any:
        """The parsed value of the declared parameter `name` (its default when absent or bad;
        a bad one is recorded for `finish()`)."""
        return self.declared[name].read(self)


@dataclass(frozen=True)
class QueryParams:
    """The query parameters of one operation, in order."""

    params: Sequence[QueryParam | FacetFilters]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for param in self.params for name in param.names)

    def openapi(self) -> list[OpenApiParameter]:
        return [parameter for param in self.params for parameter in param.openapi()]

    def reader(self, query: QueryDict) -> QueryReader:
        """A reader refusing any parameter not declared here."""
        return QueryReader(query, self)

    def parse(self, query: QueryDict) -> dict[str, Any]:
        """Every declared parameter's value by name; 400 (`InvalidParameters`) naming each
        bad one."""
        reader = self.reader(query)
        values = {name: reader.value(name) for name in reader.declared}
        reader.finish()
        return values
