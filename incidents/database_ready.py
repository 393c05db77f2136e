"""One check shared by the commands that read or write cases: a database `migrate` never
ran on (a new `DATABASE_URL`, a restore's fresh file) is named as such, with what to do,
instead of ending in `OperationalError: no such table: incidents_case`. MCP tools ask
`missing_database_file` before each call and `database_problem` at stdio start-up, so that
a desktop client is answered what to run rather than served by a dead server.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
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


def missing_database_file(alias: str = DEFAULT_DB_ALIAS) -> str | None:
    """What to tell an operator when the database is a SQLite file that does not exist, else
    None (PostgreSQL, an in-memory database, a file that is there). Asked without connecting:
    a connection would create the file, empty, where a later `make data` looks for it."""
    connection = connections[alias]
    if connection.vendor != "sqlite":
        return None
    name = str(connection.settings_dict["NAME"])
    if name == ":memory:" or name.startswith("file:"):  # in memory (the tests'), or a URI
        return None
    return None if Path(name).exists() else f"there is no database file at {name}"


def set_up_hint() -> str:
    """The command that migrates a database and imports the bundled cases into it, and where
    to run it: "run `make data` in /path/to/incidentlib"."""
    return f"run `make data` in {settings.BASE_DIR}"


def database_problem(alias: str = DEFAULT_DB_ALIAS) -> str | None:
    """Why the database cannot serve cases, with what to run (`set_up_hint`): a missing SQLite
    file (not created by asking) or no case table (one query); None when it can. A database
    error on connecting propagates (a server that does not answer is no set-up problem)."""
    problem = missing_database_file(alias)
    if problem is None:
        connection = connections[alias]
        with connection.cursor() as cursor:
            tables = connection.introspection.table_names(cursor)
        if Case._meta.db_table in tables:
            return None
        problem = f"the database at {database_label(alias)} has no incidentlib tables"
    return f"{problem}: {set_up_hint()}"
