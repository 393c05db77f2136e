"""WSGI entry point (`manage.py runserver`, a WSGI server): the site and the API; MCP over
HTTP needs the ASGI application (incidentlib/asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

from incidentlib.server_start import on_first_call_wsgi  # noqa: E402
from incidents.servers_cache import servers_started  # noqa: E402

# Before the first answer, never at import (incidentlib/server_start.py): writers configured
# otherwise learn where to tell of a change, or that there is no servers' cache any more.
application = on_first_call_wsgi(get_wsgi_application(), servers_started)
