import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

application = get_wsgi_application()

from incidents.servers_cache import record_servers_cache  # noqa: E402

# As incidentlib/asgi.py: writers configured otherwise learn where to tell of a change.
record_servers_cache()
