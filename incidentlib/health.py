"""`GET /healthz`: is this app server able to answer from its database?

For load balancers and orchestrators. Runs one `SELECT 1` on the default database: 200
`{"status": "ok", "database": "ok"}` when it answers, 503 `{"status": "unavailable",
"database": "<error class>"}` with `Retry-After` when it does not. Never cached, never
throttled, no HTML.
"""

from __future__ import annotations

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from incidentlib.middleware import RETRY_AFTER_SECONDS


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers `SELECT 1`, else 503 naming the error class."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        response = JsonResponse({"status": "unavailable", "database": type(exc).__name__}, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return JsonResponse({"status": "ok", "database": "ok"})
