"""Rate limiting per client address (kept apart from the views: DRF imports it while
`rest_framework.views` is still loading)."""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class ClientRateThrottle(SimpleRateThrottle):
    """Requests per client address, counted in the shared cache (`CACHES["default"]`).

    The view's `throttle_scope` ("api" unless set) picks the rate in
    `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`, read on every request so that changed
    settings apply at once; a scope without a rate is not limited. The client address is
    `REMOTE_ADDR`, or the address `NUM_PROXIES` trusted proxies put in X-Forwarded-For.
    Over the limit DRF raises `Throttled`: 429 with `Retry-After` in seconds.
    """

    def __init__(self) -> None:  # the rate depends on the view; see allow_request
        pass

    def allow_request(self, request, view) -> bool:
        self.scope = getattr(view, "throttle_scope", "api")
        self.rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)  # type: ignore[assignment]  # stubs type the setting loosely; values are rate strings
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
