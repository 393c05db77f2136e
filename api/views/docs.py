"""`/api/schema/` (OpenAPI 3.1, JSON by default) and `/api/docs/` (Swagger UI, served offline)."""

from __future__ import annotations

from collections.abc import Iterable

from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.views import SpectacularAPIView
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer

from api.errors import InvalidParameters, ParameterError


class SchemaNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, but a `?format=` no renderer serves is a 400 naming the formats
    served (`json`, `yaml`): DRF answered 404 "Not found.", as if there were no schema."""

    def filter_renderers(self, renderers: Iterable[BaseRenderer], format: str) -> list[BaseRenderer]:
        renderers = list(renderers)
        served = [renderer for renderer in renderers if renderer.format == format]
        if not served:
            formats = list(dict.fromkeys(renderer.format for renderer in renderers))
            raise InvalidParameters(
                [
                    ParameterError(
                        "format",
                        f"unknown format {format!r}; the schema is served as {' or '.join(formats)}",
                        format,
                        formats,
                    )
                ]
            )
        return served


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema generated from the views: JSON (`application/vnd.oai.openapi+json`)
    unless `?format=yaml` or `Accept` asks for YAML. `Accept` may name the OpenAPI media
    types or the common ones: `application/json` is answered as `application/json`,
    `application/yaml` as `application/yaml` (`application/vnd.oai.openapi`); `*/*` or no
    `Accept` gets the default. `?format=json|yaml` wins over `Accept`; another format is a
    400 naming those two."""

    # The first is the default; DRF picks the first renderer of a `?format=`.
    renderer_classes = [OpenApiJsonRenderer, OpenApiJsonRenderer2, OpenApiYamlRenderer, OpenApiYamlRenderer2]
    content_negotiation_class = SchemaNegotiation
