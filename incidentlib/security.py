"""Security headers and TLS-only settings, kept apart from `settings.py` so tests can apply
exactly what production gets (`override_settings(**tls_settings(True))`).

The Content-Security-Policy header is built by django-csp: a maintained middleware with
per-view overrides (`csp.decorators.csp_update`), rather than a hand-written one.
"""

from __future__ import annotations

from typing import Any

from csp.constants import NONE, SELF

# No 'unsafe-inline' and no 'unsafe-eval' anywhere: every script is a file under /static/,
# every style a stylesheet. Charts are inline SVG (markup, not script). `data:` images only
# for the API docs' Swagger UI icons.
CONTENT_SECURITY_POLICY: dict[str, Any] = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

HEADER_SETTINGS: dict[str, Any] = {
    "SECURE_CONTENT_TYPE_NOSNIFF": True,
    # Other sites learn only that a visitor came from this host, not which case or search.
    "SECURE_REFERRER_POLICY": "strict-origin-when-cross-origin",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY": "same-origin",
    "X_FRAME_OPTIONS": "DENY",
}

HSTS_SECONDS = 365 * 24 * 3600


def tls_settings(served_over_tls: bool, *, behind_proxy: bool = False) -> dict[str, Any]:
    """Settings that only make sense when the site is reached over HTTPS: secure cookies,
    HSTS for a year and a redirect from http://. `behind_proxy` trusts the proxy's
    `X-Forwarded-Proto: https` (only set it when a proxy always sets that header).
    """
    values: dict[str, Any] = {
        "SESSION_COOKIE_SECURE": served_over_tls,
        "CSRF_COOKIE_SECURE": served_over_tls,
        "SECURE_SSL_REDIRECT": served_over_tls,
        "SECURE_HSTS_SECONDS": HSTS_SECONDS if served_over_tls else 0,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": served_over_tls,
        "SECURE_HSTS_PRELOAD": served_over_tls,
        # Load balancers probe the health check over plain HTTP inside the network.
        "SECURE_REDIRECT_EXEMPT": [r"^healthz$"],
        "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https") if behind_proxy else None,
    }
    return values
