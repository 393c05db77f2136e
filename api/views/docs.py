"""`/api/schema/` (OpenAPI 3.1, JSON by default) and `/api/docs/` (Swagger UI, served offline)."""

from __future__ import annotations

from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.views import SpectacularAPIView


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema generated from the views: JSON (`application/vnd.oai.openapi+json`)
    unless `?format=yaml` or `Accept` asks for YAML. `Accept` may name the OpenAPI media
    types or the common ones: `application/json` is answered as `application/json`,
    `application/yaml` as `application/yaml` (`application/vnd.oai.openapi`); `*/*` or no
    `Accept` gets the default. `?format=json|yaml` wins over `Accept`."""

    # The first is the default; DRF picks the first renderer of a `?format=`.
    renderer_classes = [OpenApiJsonRenderer, OpenApiJsonRenderer2, OpenApiYamlRenderer, OpenApiYamlRenderer2]
