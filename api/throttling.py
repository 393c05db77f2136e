"""Rate limiting per client address, for every door (kept apart from the views: DRF imports
it while `rest_framework.views` is still loading).

The API counts through `ClientRateThrottle` (its default throttle class); the `/match/` and
`/propose/` forms and MCP `tools/call` over HTTP count through `count_request`, which uses
the same class: one cache key per client address and scope (`throttle_<scope>_<address>`),
so a client's requests through every door add up in one count per scope."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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

    def __init__(self, *, record: bool = True) -> None:  # the rate depends on the view; see allow_request
        # False: only ask whether the client is within the rate, counting nothing.
        self.record = record

    def allow_request(self, request, view) -> bool:
        self.scope = getattr(view, "throttle_scope", "api")
        self.rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)  # type: ignore[assignment]  # stubs type the setting loosely; values are rate strings
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def throttle_success(self) -> bool:
        return super().throttle_success() if self.record else True


# The rate scope of the heavy work (log matching, triage, export) at every door.
HEAVY_SCOPE = "api-heavy"


class _Scope:
    def __init__(self, scope: str) -> None:
        self.throttle_scope = scope


def rate_of(scope: str) -> str | None:
    """The rate string of `scope` ("30/minute"), or None when the scope is not limited."""
    return api_settings.DEFAULT_THROTTLE_RATES.get(scope)  # type: ignore[return-value]  # see allow_request


def count_request(request: Any, scope: str, *, record: bool = True) -> int | None:
    """Count one request of `request`'s client against `scope`, as the API's throttle does.

    `request` needs only `META` and `headers` (a Django `HttpRequest`, or an `ASGIRequest`
    built from an ASGI scope). Returns None when the request is within the rate (or the
    scope has none), else the whole seconds until the client may send again (at least 1).
    A refused request is not counted, as in the API. With `record=False` nothing is
    counted: the answer only says whether one more request would be within the rate (for
    a door that counts a request only once it knows what became of it, as proposals do).
    """
    throttle = ClientRateThrottle(record=record)
    if throttle.allow_request(request, _Scope(scope)):
        return None
    return max(1, math.ceil(throttle.wait() or 1))


@dataclass(frozen=True)
class OverRate:
    """A request refused over `scope`'s rate, told alike at every door: the API's 429 problem,
    MCP's 429 JSON-RPC error (`data`: `facts()`), each in `message()`'s words."""

    scope: str
    retry_after: int  # whole seconds, at least 1 (the `Retry-After` header)

    @property
    def rate(self) -> str | None:
        return rate_of(self.scope)

    def facts(self) -> dict[str, Any]:
        """Which limit and when to retry: `{"scope", "rate", "retry_after"}`."""
        return {"scope": self.scope, "rate": self.rate, "retry_after": self.retry_after}

    def message(self, *, work: str, counted_with: str) -> str:
        """`Rate limit: at most 30/minute for <work> from one client address, counted with this
        address's <counted_with>; try again in 12 seconds.`"""
        seconds = f"{self.retry_after} second{'s' if self.retry_after != 1 else ''}"
        return (
            f"Rate limit: at most {self.rate} for {work} from one client address, counted with "
            f"this address's {counted_with}; try again in {seconds}."
        )
