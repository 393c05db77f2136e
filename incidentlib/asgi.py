"""ASGI entry point: `uvicorn incidentlib.asgi:application` serves the site, the API and
the MCP endpoint (`/mcp`, Streamable HTTP) from one process."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

# Django first: it sets up settings and apps, which the MCP server's modules need.
django_application = get_asgi_application()

from mcp_server.http_app import build_asgi_app  # noqa: E402

application = build_asgi_app(django_application)
