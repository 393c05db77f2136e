"""The servers' recorded cache holds no credentials: 0030 stored the servers' cache entry as
it was, so `CACHE_URL=redis://:password@host:6379/0` put the password in the database (and
in every dump of it). The row keeps the cache's identity without user names or passwords
(`incidents.cache_identity`), and `needs_credentials` says that one was left out: a writer
reaches that cache only with its own `CACHE_URL` naming it.

Not reversible into the password, which is gone: going back keeps the scrubbed row.
"""

from django.db import migrations, models

from incidents.cache_identity import cache_identity


def scrub_credentials(apps, schema_editor):
    for row in apps.get_model("incidents", "ServersCache").objects.all():
        identity, withheld = cache_identity(row.config)
        if withheld or identity != row.config:
            row.config = identity
            row.needs_credentials = row.needs_credentials or withheld
            row.save(update_fields=["config", "needs_credentials"])


class Migration(migrations.Migration):
    dependencies = [("incidents", "0030_servers_cache")]

    operations = [
        migrations.AddField(
            model_name="serverscache",
            name="needs_credentials",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(scrub_credentials, migrations.RunPython.noop),
    ]
