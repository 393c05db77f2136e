"""One check shared by the commands that read or write cases: a database `migrate` never
ran on (a new `DATABASE_URL`, a restore's fresh file) is named as such, with what to do,
instead of ending in `OperationalError: no such table: incidents_case`."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import DEFAULT_DB_ALIAS, connections

from .models import Case


def database_label(alias: str = DEFAULT_DB_ALIAS) -> str:
    """Where the database is, without its password: the SQLite file, or the PostgreSQL
    database with its server."""
    connection = connections[alias]
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return str(settings["NAME"])
    host = settings.get("HOST") or "localhost"
    port = f":{settings['PORT']}" if settings.get("PORT") else ""
    return f"{connection.display_name} database {settings['NAME']!r} on {host}{port}"


def missing_tables(alias: str = DEFAULT_DB_ALIAS) -> str | None:
    """What to tell an operator when the database holds no case table (one query), else None."""
    connection = connections[alias]
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
    if Case._meta.db_table in tables:
        return None
    return f"the database at {database_label(alias)} has no incidentlib tables: run `manage.py migrate` first"


def require_tables(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Raise CommandError with `missing_tables`'s sentence when the case table is missing."""
    problem = missing_tables(alias)
    if problem is not None:
        raise CommandError(problem)
