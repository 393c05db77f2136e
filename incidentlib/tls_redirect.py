"""With `HTTPS=true` (`SECURE_SSL_REDIRECT`), a request to the ASGI app's own routes over
plain HTTP is redirected to https:// with a 308, as Django's `TlsRedirectMiddleware` does for
the site and the API: `/mcp` is served outside Django (mcp_server/http_app.py) and would
otherwise answer over plain HTTP. 308 keeps the method and the body (a 301 turns a POST into
a GET). A Host not in `ALLOWED_HOSTS` is not redirected to: the app behind refuses it."""

from __future__ import annotations

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send


def _secure(scope: Scope, headers: Headers) -> bool:
    if scope.get("scheme") in ("https", "wss"):
        return True
    proxy_header = settings.SECURE_PROXY_SSL_HEADER
    if not proxy_header:
        return False
    name, value = proxy_header
    # "HTTP_X_FORWARDED_PROTO" -> "x-forwarded-proto"; the first value when a chain sent several.
    sent = headers.get(name.removeprefix("HTTP_").replace("_", "-").lower(), "")
    return sent.split(",")[0].strip() == value


class HttpsOnly:
    """`app`, redirecting plain-HTTP requests to https:// when `SECURE_SSL_REDIRECT` is on. A
    class, not a closure: Starlette's `Route` takes a plain function for a request handler."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and settings.SECURE_SSL_REDIRECT:
            headers = Headers(scope=scope)
            host = settings.SECURE_SSL_HOST or headers.get("host", "")
            domain, _ = split_domain_port(host)
            if not _secure(scope, headers) and domain and validate_host(domain, settings.ALLOWED_HOSTS):
                query = scope.get("query_string", b"").decode("latin-1")
                location = f"https://{host}{scope['path']}" + (f"?{query}" if query else "")
                await send(
                    {
                        "type": "http.response.start",
                        "status": 308,
                        "headers": [(b"location", location.encode("latin-1")), (b"content-length", b"0")],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        await self.app(scope, receive, send)
