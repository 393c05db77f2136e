"""ASGI entry point: `uvicorn incidentlib.asgi:application` serves the site and the API."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

application = get_asgi_application()
