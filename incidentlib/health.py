"""`GET /healthz`: can this app server answer from every database and cache it uses?

For load balancers and orchestrators. Runs `SELECT 1` on each database alias (the primary,
`default`, and each read replica, `replica1`, ...) and a set/get round trip through the
shared cache (Redis with `CACHE_URL`, else the database cache): 200 `{"status": "ok",
"databases": {"default": "ok", ...}, "cache": "ok"}` when all answer, else 503 with
`"status": "unavailable"`, the failing ones given by the error's class name (the driver's
message is in the log) and `Retry-After`. Answered before host validation
(`incidentlib.middleware.HealthCheckMiddleware`, so a probe by IP address is answered),
never cached, never throttled, no HTML.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid

from django.core.cache import cache
from django.db import DatabaseError, connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from incidentlib.cache_errors import CACHE_ERRORS
from incidentlib.db_router import PRIMARY, replica_aliases
from incidentlib.outages import driver_message

logger = logging.getLogger("incidentlib.reliability")

HEALTH_PATH = "/healthz"
RETRY_AFTER_SECONDS = 5
OK = "ok"
_PROBE_KEY = "incidentlib:healthz"
_PROBE_SECONDS = 10
# The database cache fails as a database does.
_CACHE_FAILURES: tuple[type[Exception], ...] = (DatabaseError, *CACHE_ERRORS)


def database_status(alias: str) -> str:
    """ "ok" when database `alias` answers `SELECT 1`, else the error's class name (logged
    with the driver's message)."""
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        logger.error("healthz: database %s: %s: %s", alias, type(exc).__name__, driver_message(exc))
        return type(exc).__name__
    return OK


def cache_status(asking: str = "healthz") -> str:
    """ "ok" when a value written to the shared cache is read back, else what went wrong
    (logged, naming who was `asking`)."""
    token = uuid.uuid4().hex
    # A key of this thread's own: two probes at once (a load balancer's and a monitor's, two
    # workers) each wrote the one key and one read the other's token back, a 503 for nothing.
    key = f"{_PROBE_KEY}:{os.getpid()}:{threading.get_ident()}"
    try:
        cache.set(key, token, timeout=_PROBE_SECONDS)
        if cache.get(key) == token:
            return OK
        problem = "value not read back"
    except _CACHE_FAILURES as exc:
        problem = type(exc).__name__
        logger.error("%s: shared cache: %s: %s", asking, problem, driver_message(exc))
        return problem
    logger.error("%s: shared cache: %s", asking, problem)
    return problem


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every database and the shared cache answer, else 503 naming what failed."""
    databases = {alias: database_status(alias) for alias in [PRIMARY, *replica_aliases()]}
    cached = cache_status()
    healthy = cached == OK and all(status == OK for status in databases.values())
    body = {"status": OK if healthy else "unavailable", "databases": databases, "cache": cached}
    response = JsonResponse(body, status=200 if healthy else 503)
    if not healthy:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
