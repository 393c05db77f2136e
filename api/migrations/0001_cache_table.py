"""Create the database cache table(s) named in CACHES (throttle counts live there).

`createcachetable` skips tables that exist, caches that are not database caches and
databases the router keeps the cache out of, so this is safe with Redis configured, on
databases created before it, and on SQLite, where the cache has a file of its own that
creates its table itself (incidentlib/cache_database.py).
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = []

    operations = [
        migrations.RunPython(create_cache_tables, migrations.RunPython.noop, elidable=False),
    ]
