"""Query parameters declared once: the names a view's `ParamReader` accepts and the
`OpenApiParameter`s its schema lists come from the same declaration."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from incidents.selectors import FILTER_PARAMS

from .params import ParamReader
from .schema import filter_parameters


@dataclass(frozen=True)
class QueryParam:
    """One query parameter: its name, type and description (`OpenApiParameter`'s options)."""

    name: str
    type: Any = OpenApiTypes.STR
    description: str = ""
    options: tuple[tuple[str, Any], ...] = ()  # enum, many, explode, deprecated ...

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name,)

    def openapi(self) -> list[OpenApiParameter]:
        return [
            OpenApiParameter(
                self.name, self.type, required=False, description=self.description, **dict(self.options)
            )
        ]


class FacetFilters:
    """Every filter of the facet registry, its `exclude_` twin and the numeric bounds
    (`selectors.FILTER_PARAMS`, described by `schema.filter_parameters`)."""

    names = FILTER_PARAMS

    def openapi(self) -> list[OpenApiParameter]:
        return filter_parameters()


@dataclass(frozen=True)
class QueryParams:
    """The query parameters of one operation, in order."""

    params: Sequence[QueryParam | FacetFilters]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for param in self.params for name in param.names)

    def openapi(self) -> list[OpenApiParameter]:
        return [parameter for param in self.params for parameter in param.openapi()]

    def reader(self, query: QueryDict) -> ParamReader:
        """A reader refusing any parameter not declared here."""
        return ParamReader(query, allowed=self.names)
