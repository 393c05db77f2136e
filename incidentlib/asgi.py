"""ASGI entry point: `python -m incidentlib.serve` (or `uvicorn incidentlib.asgi:application`)
serves the site, the API and the MCP endpoint (`/mcp`, Streamable HTTP) from one process."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

# Django first: it sets up settings and apps, which the MCP server's modules need.
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from incidentlib.asgi_handler import OneHopASGIHandler  # noqa: E402
from incidentlib.logs import format_server_logs, timed  # noqa: E402

format_server_logs()  # uvicorn's start-up and access lines as the app's (JSON)

django_application = OneHopASGIHandler()

from incidentlib.server_start import on_first_call_asgi  # noqa: E402
from incidents.collector import settle  # noqa: E402
from incidents.servers_cache import servers_started  # noqa: E402
from mcp_server.http_app import build_asgi_app  # noqa: E402

# timed: each access line gives the request's duration and client (incidentlib/logs.py).
# servers_started runs before the first answer, never at import (incidentlib/server_start.py):
# writers configured otherwise (a command without CACHE_URL) learn where to tell of a change,
# or that there is no servers' cache any more.
application = on_first_call_asgi(timed(build_asgi_app(django_application)), servers_started)

# What every worker holds for its lifetime (Django, the apps, the MCP server), set aside
# from the garbage collector's full collections (`incidents.collector.settle`).
settle()
