"""What `/mcp` checks before the SDK's transport sees a request, answering every refusal
with a JSON-RPC error body:

- Host: Django's own check (`validate_host` over `ALLOWED_HOSTS`, case-insensitive, trailing
  dot stripped, `.example.org` patterns): one allow-list for the site and MCP (DNS-rebinding
  protection); 421 otherwise. Origin, when sent: an allowed host's origin (any scheme or
  port) or one of `MCP_ALLOWED_ORIGINS`; 403 otherwise.
- Methods: stateless mode has no server-sent stream and no session, so GET and DELETE get
  405 (the SDK would open an SSE stream that never sends anything).
- Body: `application/json`, else 415; at most `MAX_BODY_BYTES`, else 413; JSON, else
  -32700; one JSON-RPC 2.0 message (an object with "jsonrpc": "2.0", a method, an object
  as `params` when it has them, and a string or integer id when it has an id), else -32600
  naming what is wrong, instead of the SDK's validation dump. Batches
  (arrays) were removed from the protocol in 2025-06-18: -32600 saying so.
- Rate: each message that reads the case store counts against the client address's rate,
  in the counts the API keeps (`api.throttling.count_request`: same cache keys, same
  address from `REMOTE_ADDR` / X-Forwarded-For): `tools/call` of a heavy tool (`HEAVY_TOOLS`,
  the work of `POST /api/match` and `/api/triage`) against "api-heavy", other tools,
  `resources/read`, `resources/list` and `completion/complete` against "api". Over it: 429
  with `Retry-After` and a JSON-RPC error (`RATE_LIMITED`, `data`: scope, rate,
  retry_after). `initialize`, `ping`, the tool, prompt and template lists, `prompts/get`
  and notifications are not counted: constant answers that read nothing, and a limited
  client must still be able to connect and learn the tools.
"""

from __future__ import annotations

import json
import logging
from io import BytesIO
from typing import Any

import anyio.to_thread
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http.request import split_domain_port, validate_host
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.throttling import HEAVY_SCOPE, OverRate, count_request, rate_of
from incidents.encodable import encodable
from incidents.references import split_url

from .toolkit import with_database

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 4 * 1024 * 1024  # a 1,000,000-character log as JSON, with room to spare
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
RATE_LIMITED = -32000  # JSON-RPC's range for server-defined errors; MCP defines none for this
# Tools doing what an "api-heavy" endpoint does: POST /api/match, POST /api/triage.
HEAVY_TOOLS = frozenset({"match_log", "triage"})
# Methods that read the case store as an API request does.
COUNTED_METHODS = frozenset({"tools/call", "resources/read", "resources/list", "completion/complete"})


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


def rpc_error(
    status: int, code: int, message: str, request_id: Any = None, data: Any = None, **headers: str
) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = {"jsonrpc": "2.0", "id": request_id, "error": error}
    return JSONResponse(encodable(body), status_code=status, headers=headers)


def rate_scope(message: dict[str, Any]) -> str | None:
    """The rate `message` (a valid JSON-RPC message) counts against, or None."""
    method = message.get("method")
    if method not in COUNTED_METHODS or "id" not in message:
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return HEAVY_SCOPE if method == "tools/call" and name in HEAVY_TOOLS else "api"


def _count(scope: Scope, rate: str) -> int | None:
    try:
        return count_request(ASGIRequest(scope, BytesIO()), rate)
    except Exception:
        # The counts are unreadable (their database is away): let the call through, as the
        # tool then answers its own "did not answer; try again" error.
        logger.exception("MCP rate count failed")
        return None


async def rate_refusal(scope: Scope, message: dict[str, Any]) -> JSONResponse | None:
    """429 when `message` is over its client's rate (see the module docstring), else None."""
    rate = rate_scope(message)
    if rate is None or rate_of(rate) is None:
        return None
    wait = await anyio.to_thread.run_sync(with_database(_count), scope, rate)
    if wait is None:
        return None
    over = OverRate(rate, wait)
    work = "log matching and triage (match_log, triage)" if rate == HEAVY_SCOPE else "tools and reads"
    text = over.message(work=work, counted_with="API requests")
    return rpc_error(429, RATE_LIMITED, text, message["id"], over.facts(), **{"Retry-After": str(wait)})


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
        if not isinstance(message["method"], str):
            return '"method" must be a string'
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            # The SDK drops such a line on stdio (the client waits for ever) and answers HTTP
            # with a pydantic dump and a null id.
            return f'"params" must be an object of named parameters (got {_json_kind(params)})'
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None  # a response to a server request
    return 'A JSON-RPC request needs a "method"'


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "an array"


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
        return await rate_refusal(scope, parsed), bytes(body)
