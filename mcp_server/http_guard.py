"""What `/mcp` checks before the SDK's transport sees a request, answering every refusal
with a JSON-RPC error body:

- Host: Django's own check (`validate_host` over `ALLOWED_HOSTS`, case-insensitive, trailing
  dot stripped, `.example.org` patterns): one allow-list for the site and MCP (DNS-rebinding
  protection); 421 otherwise. Origin, when sent: an allowed host's origin (any scheme or
  port) or one of `MCP_ALLOWED_ORIGINS`; 403 otherwise.
- Methods: stateless mode has no server-sent stream and no session, so GET and DELETE get
  405 (the SDK would open an SSE stream that never sends anything).
- Body: `application/json`, else 415; at most `MAX_BODY_BYTES`, else 413; JSON, else
  -32700; one JSON-RPC 2.0 message (an object with "jsonrpc": "2.0", a method, and a
  string or integer id when it has an id), else -32600 naming what is wrong, instead of
  the SDK's validation dump. Batches
  (arrays) were removed from the protocol in 2025-06-18: -32600 saying so.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from incidents.encodable import encodable
from incidents.references import split_url

MAX_BODY_BYTES = 4 * 1024 * 1024  # a 1,000,000-character log as JSON, with room to spare
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def host_allowed(host: str) -> bool:
    domain, _ = split_domain_port(host)
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


def origin_allowed(origin: str) -> bool:
    extra = {o.rstrip("/").lower() for o in getattr(settings, "MCP_ALLOWED_ORIGINS", [])}
    if origin.rstrip("/").lower() in extra:
        return True
    parts = split_url(origin)  # None for an unclosed `[` or a bad port: not an allowed origin
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return host_allowed(parts.netloc)


def rpc_error(status: int, code: int, message: str, request_id: Any = None, **headers: str) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return JSONResponse(encodable(body), status_code=status, headers=headers)


def envelope_problem(message: Any) -> str | None:
    """Why `message` (parsed JSON) is not one JSON-RPC 2.0 message, or None."""
    if isinstance(message, list):
        return "Batch requests are not supported (removed in MCP 2025-06-18): send one message per request"
    if not isinstance(message, dict):
        return "A JSON-RPC message must be a JSON object"
    if message.get("jsonrpc") != "2.0":
        return f'"jsonrpc" must be "2.0" (got {json.dumps(message.get("jsonrpc"))[:40]})'
    if "id" in message:
        request_id = message["id"]
        if request_id is None or isinstance(request_id, bool) or not isinstance(request_id, str | int):
            return '"id" must be a string or an integer (null is not allowed in MCP)'
    if "method" in message:
        return None if isinstance(message["method"], str) else '"method" must be a string'
    if "id" in message and ("result" in message or "error" in message):
        return None  # a response to a server request
    return 'A JSON-RPC request needs a "method"'


class McpGuard:
    """ASGI middleware in front of the SDK's Streamable HTTP app (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal, body = await self._check(scope, receive)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _check(self, scope: Scope, receive: Receive) -> tuple[JSONResponse | None, bytes]:
        headers = Headers(scope=scope)
        if not host_allowed(headers.get("host", "")):
            return rpc_error(421, INVALID_REQUEST, "Invalid Host header: not one of this site's hosts"), b""
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(origin):
            return rpc_error(
                403, INVALID_REQUEST, "Invalid Origin header: this origin may not call /mcp"
            ), b""
        if scope["method"] in ("GET", "DELETE"):
            message = "This server is stateless: POST JSON-RPC messages to /mcp (no event stream, no session)"
            return rpc_error(405, INVALID_REQUEST, message, Allow="POST, OPTIONS"), b""
        if scope["method"] != "POST":
            return None, b""
        if not headers.get("content-type", "").lower().startswith("application/json"):
            return rpc_error(415, INVALID_REQUEST, "Content-Type must be application/json"), b""
        too_large = rpc_error(413, INVALID_REQUEST, f"Request body too large: at most {MAX_BODY_BYTES} bytes")
        try:
            if int(headers.get("content-length") or 0) > MAX_BODY_BYTES:
                return too_large, b""
        except ValueError:
            return rpc_error(400, INVALID_REQUEST, "Content-Length is not a number"), b""
        body = bytearray()
        while True:
            chunk = await receive()
            if chunk["type"] != "http.request":
                break
            body += chunk.get("body", b"")
            if len(body) > MAX_BODY_BYTES:
                return too_large, b""
            if not chunk.get("more_body", False):
                break
        try:
            parsed = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return rpc_error(400, PARSE_ERROR, "Parse error: the body is not JSON"), bytes(body)
        if (problem := envelope_problem(parsed)) is not None:
            request_id = parsed.get("id") if isinstance(parsed, dict) else None
            valid_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
            return rpc_error(400, INVALID_REQUEST, problem, request_id if valid_id else None), bytes(body)
        return None, bytes(body)
