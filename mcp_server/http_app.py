"""Streamable HTTP at `/mcp`, served by the same ASGI app as the site and the API.

- The MCP route sits in the outer Starlette router next to `Mount("/", django)`: mounting
  the MCP app at "/mcp" would send `POST /mcp` (no slash) to Django.
- A mounted app's lifespan never runs, so the outer app's lifespan runs the session manager.
- Stateless with JSON responses: every request stands alone, so several worker processes
  behind a load balancer answer any request (stateful sessions fail with "Session not found").
- Host and Origin are checked (DNS-rebinding protection) against lists built from Django's
  `ALLOWED_HOSTS`, plus `MCP_ALLOWED_ORIGINS` for clients served from other origins.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from django.conf import settings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Mount

from .server import build_server

MCP_PATH = "/mcp"


def transport_security() -> TransportSecuritySettings:
    """Allowed Host and Origin values for `/mcp`, from `ALLOWED_HOSTS` (any port).

    `ALLOWED_HOSTS = ["*"]` switches the check off, as it does for Django. A Django
    subdomain pattern (`.example.com`) allows `example.com` itself only: the SDK matches
    exact names, so list subdomains that serve MCP explicitly.
    """
    if "*" in settings.ALLOWED_HOSTS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts: list[str] = []
    origins: list[str] = list(getattr(settings, "MCP_ALLOWED_ORIGINS", []))
    for pattern in settings.ALLOWED_HOSTS:
        name = pattern.lstrip(".")
        if not name:
            continue
        hosts += [name, f"{name}:*"]
        origins += [f"{scheme}://{name}{port}" for scheme in ("http", "https") for port in ("", ":*")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=origins,
    )


def build_asgi_app(django_app: Any) -> Starlette:
    """The site's ASGI app: `/mcp` for MCP clients, everything else to Django."""
    server = build_server()
    mcp_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    return Starlette(routes=[*mcp_app.routes, Mount("/", app=django_app)], lifespan=lifespan)
