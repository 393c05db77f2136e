"""The servers' recorded cache holds no credentials: 0030 stored the servers' cache entry as
it was, so `CACHE_URL=redis://:password@host:6379/0` put the password in the database (and
in every dump of it). The row keeps the cache's identity without user names or passwords
(`incidents.cache_identity`), and `needs_credentials` says that one was left out: a writer
reaches that cache only with its own `CACHE_URL` naming it.

Not reversible into the password, which is gone: going back keeps the scrubbed row.

The scrubbing is `incidents.cache_identity.cache_identity` (and its helpers) as it stood when
this migration was written, copied here: a migration is frozen, and importing the live module
would let a later change to it change what this one does.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.db import migrations, models

# What names a cache: the same values here mean the same keys on the same server.
IDENTITY_KEYS = ("BACKEND", "LOCATION", "KEY_PREFIX", "VERSION", "OPTIONS")
# Option and query names whose value is a credential (password, ssl_password, username,
# credential_provider, auth_token, ...), whatever their case.
SECRET_OPTION = re.compile(r"pass|secret|token|credential|auth|^user(name)?$", re.IGNORECASE)
# Django's Redis backend reads several servers from one string separated by these.
_SERVER_SEPARATOR = re.compile(r"([;,])")


def cache_identity(config: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The parts of a `CACHES` entry that say which cache it is, without credentials, as
    JSON gives them back (tuples as lists); and whether any credential was left out."""
    identity, withheld = _without_secrets({key: config.get(key) for key in IDENTITY_KEYS})
    named = {key: value for key, value in identity.items() if value not in (None, "", {})}
    return json.loads(json.dumps(named, default=str)), withheld


def _without_secrets(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        withheld = False
        for key, item in value.items():
            if isinstance(key, str) and SECRET_OPTION.search(key):
                withheld = True
                continue
            kept[key], left_out = _without_secrets(item)
            withheld = withheld or left_out
        return kept, withheld
    if isinstance(value, list | tuple):
        parts = [_without_secrets(item) for item in value]
        return [part for part, _ in parts], any(left_out for _, left_out in parts)
    if isinstance(value, str):
        return _bare_servers(value)
    return value, False


def _bare_servers(text: str) -> tuple[str, bool]:
    """`text` with each URL in it (several servers: `a,b` or `a;b`) without credentials."""
    if "://" not in text:
        return text, False
    parts = [_bare_url(part) for part in _SERVER_SEPARATOR.split(text)]
    return "".join(part for part, _ in parts), any(left_out for _, left_out in parts)


def _bare_url(text: str) -> tuple[str, bool]:
    if "://" not in text:
        return text, False
    url = urlsplit(text)
    userinfo, at, host = url.netloc.rpartition("@")
    query = parse_qsl(url.query, keep_blank_values=True)
    kept = [(name, value) for name, value in query if not SECRET_OPTION.search(name)]
    if not at and len(kept) == len(query):
        return text, False
    bare = urlunsplit((url.scheme, host, url.path, urlencode(kept), url.fragment))
    return bare, bool(at and userinfo) or len(kept) != len(query)


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
