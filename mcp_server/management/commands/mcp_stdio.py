"""`python manage.py mcp_stdio`: serve the MCP tools over stdin/stdout for desktop clients."""

from __future__ import annotations

import anyio
from django.core.management.base import BaseCommand
from django.db import DatabaseError

from incidents.database_ready import database_problem
from mcp_server.server import build_server
from mcp_server.stdio import install_checked_stdio


class Command(BaseCommand):
    help = (
        "Serve the incidentlib MCP tools, resources and prompt over stdio (for desktop MCP "
        "clients). stdout carries only the protocol; logs go to stderr. A line that is not a "
        "JSON-RPC message is answered with a JSON-RPC error and reported on stderr."
    )
    # The system checks load every URLconf and view module (about a second of a desktop
    # client's wait for its first answer); the server needs none of them to start.
    requires_system_checks: list[str] = []

    def handle(self, *args, **options) -> None:
        # A database not set up (no file, never migrated) is said on stderr and the server
        # starts anyway: a desktop client shows a server that exits only as "disconnected",
        # with stderr in a log file, while each tool answers the problem and what to run
        # (`toolkit.with_database`) to the assistant, which tells the user.
        try:
            problem = database_problem()
        except DatabaseError as error:
            problem = f"the database did not answer ({error})"
        if problem is not None:
            self.stderr.write(f"warning: {problem}; serving anyway, each tool answers this until then")
        install_checked_stdio()
        anyio.run(build_server().run_stdio_async)
