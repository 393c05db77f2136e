"""What failed when a database or the shared cache does not answer: for the log (the alias
and the driver's message) and for the public answer (the alias and the error's class only)."""

from __future__ import annotations

from django.db import connections


def failed_aliases() -> list[str]:
    """The database aliases (default, replica1, ..., cache) whose connection in this thread
    raised an error that may make it unusable since its last commit or rollback: Django
    marks them (`errors_occurred`) when it wraps the driver's error, connecting included."""
    return [conn.alias for conn in connections.all(initialized_only=True) if conn.errors_occurred]


def driver_message(exc: BaseException) -> str:
    """The driver's own message (Django re-raises it with the same text): its first line,
    e.g. 'connection to server at "127.0.0.1", port 5433 failed: Connection refused'."""
    text = str(exc.__cause__ or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
