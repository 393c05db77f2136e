"""The servers' recorded cache (incidents/servers_cache.py) holds no password: the row is in
every dump of the database and readable by anyone who can read it. A writer whose own
CACHE_URL names that cache (same server, database and prefix, whatever its password) tells
it with its own credentials; another one is refused, told to set CACHE_URL, and never shown
the password. Against a Redis server of the test's own that requires a password."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from incidents.backup import export_backup
from incidents.models import Case, ServersCache
from incidents.servers_cache import SharedCacheUnreachable, record_servers_cache, servers_cache
from incidents.services import save_case_document
from tests.conftest import load_fixture
from tests.factories import synthetic_case, write_cases
from tests.reliability.protected_redis import PASSWORD, protected_redis_server

pytestmark = pytest.mark.django_db

REDIS = "incidentlib.redis_cache.SharedPoolRedisCache"
CLI_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cli"}}


@pytest.fixture(scope="module")
def protected_redis(tmp_path_factory) -> Iterator[int]:
    with protected_redis_server(tmp_path_factory.mktemp("protected-redis")) as port:
        yield port


def servers_config(port: int, prefix: str, *, password: str = PASSWORD, where: str = "url") -> dict:
    """A CACHES entry for the protected server, its password in the URL, its query or OPTIONS."""
    location = f"redis://127.0.0.1:{port}/0"
    config: dict = {"BACKEND": REDIS, "KEY_PREFIX": prefix}
    if where == "url":
        config["LOCATION"] = f"redis://:{password}@127.0.0.1:{port}/0"
    elif where == "query":
        config["LOCATION"] = f"{location}?password={password}"
    else:
        config["LOCATION"] = location
        config["OPTIONS"] = {"password": password}
    return config


@pytest.fixture
def servers(settings, protected_redis) -> dict:
    """The servers' settings: the store cache on, in the protected Redis under a prefix of
    the test's own; the recorded row written as a server's start writes it."""
    config = servers_config(protected_redis, f"t{uuid.uuid4().hex}")
    settings.CACHES = {"default": config}
    settings.STORE_CACHE = True
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api": None, "api-heavy": None},
    }
    record_servers_cache()
    return config


def edited_title(case_id: str) -> dict:
    document = copy.deepcopy(load_fixture(case_id))
    document["title"] = f"{document['title']} (edited from the command line)"
    return document


def stored_rows() -> str:
    """Every column of the servers' cache table as the database holds it."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {ServersCache._meta.db_table}")
        return repr(cursor.fetchall())


@pytest.mark.parametrize("where", ["url", "query", "options"])
def test_the_record_names_the_cache_without_its_password(settings, protected_redis, where):
    prefix = f"t{uuid.uuid4().hex}"
    settings.CACHES = {"default": servers_config(protected_redis, prefix, where=where)}
    settings.STORE_CACHE = True
    record_servers_cache()
    row = ServersCache.objects.get()
    assert row.config == {
        "BACKEND": REDIS,
        "LOCATION": f"redis://127.0.0.1:{protected_redis}/0",
        "KEY_PREFIX": prefix,
    }
    assert row.needs_credentials is True
    assert PASSWORD not in stored_rows()


def test_a_cache_without_a_password_is_recorded_as_needing_none(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.STORE_CACHE = True
    record_servers_cache()
    row = ServersCache.objects.get()
    assert (row.config, row.needs_credentials) == ({"BACKEND": settings.CACHES["default"]["BACKEND"]}, False)


def test_a_writer_with_the_servers_cache_url_is_their_cache(settings, servers, protected_redis):
    # The same cache, whatever form its password takes here.
    settings.CACHES = {"default": servers_config(protected_redis, servers["KEY_PREFIX"], where="options")}
    assert servers_cache() is None
    # Its store cache off, it tells that cache with its own password.
    settings.STORE_CACHE = False
    target = servers_cache()
    assert target is not None
    target.set("reached", "yes")
    assert target.get("reached") == "yes"


def test_a_write_with_the_servers_cache_url_and_its_store_cache_off_is_served_at_once(
    client, settings, servers, django_capture_on_commit_callbacks
):
    first = client.get("/api/cases/IL-0428")
    assert client.get("/api/cases/IL-0428")["ETag"] == first["ETag"]  # from the cache now

    settings.STORE_CACHE = False  # as `manage.py import_cases` with STORE_CACHE=false in its environment
    document = edited_title("IL-0428")
    with django_capture_on_commit_callbacks(execute=True):
        save_case_document(document, reason="command line")
    settings.STORE_CACHE = True

    fresh = client.get("/api/cases/IL-0428")
    assert fresh.json()["title"] == document["title"]
    assert fresh["ETag"] != first["ETag"]


@pytest.mark.parametrize("writer", ["no CACHE_URL", "another prefix", "another database"])
def test_a_writer_without_the_servers_password_is_refused_naming_cache_url(
    settings, servers, protected_redis, writer
):
    if writer == "no CACHE_URL":
        settings.CACHES, settings.STORE_CACHE = CLI_CACHE, False
    elif writer == "another prefix":  # the same server, password and all, but other keys
        settings.CACHES = {"default": servers_config(protected_redis, "another")}
    else:
        other = servers_config(protected_redis, servers["KEY_PREFIX"])
        settings.CACHES = {"default": {**other, "LOCATION": other["LOCATION"].removesuffix("/0") + "/1"}}
    before = Case.objects.get(pk="IL-0428").title
    with pytest.raises(SharedCacheUnreachable) as refused:
        save_case_document(edited_title("IL-0428"), reason="command line")
    message = str(refused.value)
    assert message.startswith(
        f"nothing was written: the servers' shared cache at redis://127.0.0.1:{protected_redis}/0 "
        f"(key prefix '{servers['KEY_PREFIX']}') needs a password"
    )
    assert "Set CACHE_URL to the servers' cache, password included, in .env" in message
    assert PASSWORD not in message
    assert Case.objects.get(pk="IL-0428").title == before


def test_the_import_command_without_the_password_refuses_naming_the_cache(
    settings, servers, protected_redis, tmp_path
):
    settings.CACHES, settings.STORE_CACHE = CLI_CACHE, False
    [path] = write_cases(tmp_path, [synthetic_case(1)])
    with pytest.raises(CommandError) as refused:
        call_command("import_cases", str(path))
    assert str(refused.value).startswith(
        f"import refused: nothing was written: the servers' shared cache at "
        f"redis://127.0.0.1:{protected_redis}/0"
    )
    assert PASSWORD not in str(refused.value)
    assert not Case.objects.filter(pk=synthetic_case(1)["id"]).exists()


def test_a_wrong_password_is_refused_without_showing_either(settings, servers, protected_redis):
    settings.STORE_CACHE = False
    settings.CACHES = {
        "default": servers_config(protected_redis, servers["KEY_PREFIX"], password="wrong-password")
    }
    with pytest.raises(SharedCacheUnreachable) as refused:
        save_case_document(edited_title("IL-0428"), reason="command line")
    message = str(refused.value)
    assert f"the servers' shared cache at redis://127.0.0.1:{protected_redis}/0 did not answer" in message
    assert PASSWORD not in message and "wrong-password" not in message


def test_a_cache_that_did_not_answer_is_named_without_its_password(settings, caplog):
    settings.CACHES = {"default": {"BACKEND": REDIS, "LOCATION": f"redis://:{PASSWORD}@127.0.0.1:1/0"}}
    settings.STORE_CACHE = True
    record_servers_cache()
    assert not ServersCache.objects.exists()
    assert "not recording this server's shared cache at redis://127.0.0.1:1/0" in caplog.text
    assert PASSWORD not in caplog.text


def test_backups_exports_and_dumps_hold_no_password(servers, tmp_path):
    export_backup(tmp_path / "backup")
    call_command("export_cases", str(tmp_path / "export"), "--vocab", str(tmp_path / "vocab.json"))
    dump = StringIO()
    call_command("dumpdata", "incidents.serverscache", stdout=dump)
    assert json.loads(dump.getvalue())[0]["fields"]["config"]["LOCATION"].endswith("/0")
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert len(written) > 10
    assert not [path for path in written if PASSWORD in path.read_text(encoding="utf-8")]
    assert PASSWORD not in dump.getvalue()


def test_the_migration_scrubs_a_stored_password(settings):
    from django.apps import apps

    migration = __import__(
        "incidents.migrations.0031_servers_cache_without_credentials", fromlist=["scrub_credentials"]
    )
    # As 0030 stored it: the servers' entry as it was.
    ServersCache.objects.create(
        pk=1,
        config={
            "BACKEND": REDIS,
            "LOCATION": f"redis://default:{PASSWORD}@cache.internal:6379/2",
            "OPTIONS": {"password": PASSWORD, "socket_timeout": 5},
        },
    )
    migration.scrub_credentials(apps, None)
    row = ServersCache.objects.get()
    assert row.config == {
        "BACKEND": REDIS,
        "LOCATION": "redis://cache.internal:6379/2",
        "OPTIONS": {"socket_timeout": 5},
    }
    assert row.needs_credentials is True
    assert PASSWORD not in stored_rows()


def test_the_migration_leaves_a_record_without_credentials_as_it_is(settings):
    from django.apps import apps

    migration = __import__(
        "incidents.migrations.0031_servers_cache_without_credentials", fromlist=["scrub_credentials"]
    )
    config = {"BACKEND": REDIS, "LOCATION": "redis://cache.internal:6379/2", "KEY_PREFIX": "site"}
    ServersCache.objects.create(pk=1, config=config)
    migration.scrub_credentials(apps, None)
    row = ServersCache.objects.get()
    assert (row.config, row.needs_credentials) == (config, False)
