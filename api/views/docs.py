"""`/api/schema/` (OpenAPI 3.1, JSON by default) and `/api/docs/` (Swagger UI, served offline)."""

from __future__ import annotations

from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiYamlRenderer
from drf_spectacular.views import SpectacularAPIView


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema generated from the views; JSON unless `?format=yaml` or `Accept`
    asks for YAML."""

    renderer_classes = [OpenApiJsonRenderer, OpenApiYamlRenderer]
