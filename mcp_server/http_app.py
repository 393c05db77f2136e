"""Streamable HTTP at `/mcp` (and `/mcp/`), served by the same ASGI app as the site and the API.

- The MCP routes sit in the outer Starlette router next to `Mount("/", django)`: mounting
  the MCP app at "/mcp" would send `POST /mcp` (no slash) to Django.
- A mounted app's lifespan never runs, so the outer app's lifespan runs the session manager.
- Stateless with JSON responses: every request stands alone, so several worker processes
  behind a load balancer answer any request (stateful sessions fail with "Session not found").
- `McpGuard` checks Host and Origin against Django's `ALLOWED_HOSTS` (plus
  `MCP_ALLOWED_ORIGINS`), methods, body size and the JSON-RPC envelope; the SDK's own
  Host/Origin check is off because it compares names exactly (no case folding, no trailing
  dot, no subdomain patterns), which would make a second, different allow-list.
- With `HTTPS=true`, plain-HTTP requests get a 308 to https:// (`incidentlib.tls_redirect`)
  before anything else, as Django's `TlsRedirectMiddleware` does for the other paths.
- CORS (Starlette's `CORSMiddleware`): preflights and response headers for the origins in
  `MCP_ALLOWED_ORIGINS` only, so a browser-based client served from there can call /mcp.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from django.conf import settings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from incidentlib.tls_redirect import HttpsOnly

from .http_guard import MAX_BODY_BYTES, McpGuard
from .server import build_server

MCP_PATH = "/mcp"
CORS_HEADERS = [
    "content-type",
    "accept",
    "authorization",
    "mcp-protocol-version",
    "mcp-session-id",
    "last-event-id",
]


def cors(app: ASGIApp) -> ASGIApp:
    """CORS for the origins in `MCP_ALLOWED_ORIGINS` (none for others)."""
    return CORSMiddleware(
        app,
        allow_origins=list(getattr(settings, "MCP_ALLOWED_ORIGINS", [])),
        allow_methods=["POST", "OPTIONS"],
        allow_headers=CORS_HEADERS,
        expose_headers=["mcp-session-id", "mcp-protocol-version"],
        max_age=86400,
    )


def at_mcp_path(app: ASGIApp) -> ASGIApp:
    """`app` seeing every request at `MCP_PATH` (so `/mcp/` is served as `/mcp`)."""

    async def call(scope: Scope, receive: Receive, send: Send) -> None:
        await app({**scope, "path": MCP_PATH, "raw_path": MCP_PATH.encode()}, receive, send)

    return call


def build_asgi_app(django_app: Any) -> Starlette:
    """The site's ASGI app: `/mcp` for MCP clients, everything else to Django."""
    server = build_server()
    mcp_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        max_request_body_size=MAX_BODY_BYTES + 1,  # McpGuard answers first, with a JSON body
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    # Redirected to https:// first (HTTPS=true), as Django redirects every other path.
    endpoint = HttpsOnly(cors(McpGuard(at_mcp_path(mcp_app))))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    routes = [Route(MCP_PATH, endpoint), Route(MCP_PATH + "/", endpoint), Mount("/", app=django_app)]
    return Starlette(routes=routes, lifespan=lifespan)
