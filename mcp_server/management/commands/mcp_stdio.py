"""`python manage.py mcp_stdio`: serve the MCP tools over stdin/stdout for desktop clients."""

from __future__ import annotations

import anyio
from django.core.management.base import BaseCommand

from incidents.database_ready import require_tables
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
        # Before the protocol starts: a client shows the server's stderr when it fails to start,
        # while every tool would only have answered that the database did not answer.
        require_tables()
        install_checked_stdio()
        anyio.run(build_server().run_stdio_async)
