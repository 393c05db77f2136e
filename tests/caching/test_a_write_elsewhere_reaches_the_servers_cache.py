"""A write made by a process that does not share the servers' cache (a command run without
their CACHE_URL: store cache off, or another cache) still retires what the servers cached:
each server records its cache in the database at start-up, and every write replaces the
generation there too, or is refused when it cannot."""

from __future__ import annotations

import copy

import pytest
from django.core.management import CommandError, call_command

from incidents.models import Case, ServersCache
from incidents.servers_cache import SharedCacheUnreachable, record_servers_cache, servers_started
from incidents.services import save_case_document
from tests.conftest import load_fixture
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

# A command's own cache when CACHE_URL is not in its environment: not the servers'.
CLI_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cli"}}
# Nothing listens on port 1: connections are refused at once.
DOWN_REDIS = {"BACKEND": "incidentlib.redis_cache.SharedPoolRedisCache", "LOCATION": "redis://127.0.0.1:1/0"}


def edited_title(case_id: str) -> dict:
    document = copy.deepcopy(load_fixture(case_id))
    document["title"] = f"{document['title']} (edited from the command line)"
    return document


def committed(capture, write) -> None:
    """Run `write` as committed: its on-commit callbacks run, so what the test's connection
    reads next is not taken for its own uncommitted write (`store_cache._writing`)."""
    with capture(execute=True):
        write()


def test_a_write_with_the_store_cache_off_is_served_at_once(
    client, settings, store_cache_on, django_capture_on_commit_callbacks
):
    record_servers_cache()  # the server's start-up
    server_caches = settings.CACHES
    first = client.get("/api/cases/IL-0428")
    assert client.get("/api/cases/IL-0428")["ETag"] == first["ETag"]  # from the cache now

    # As `manage.py import_cases` run without CACHE_URL: its own cache, the store cache off.
    settings.CACHES, settings.STORE_CACHE = CLI_CACHE, False
    document = edited_title("IL-0428")
    committed(django_capture_on_commit_callbacks, lambda: save_case_document(document, reason="command line"))
    settings.CACHES, settings.STORE_CACHE = server_caches, True

    fresh = client.get("/api/cases/IL-0428")
    assert fresh.json()["title"] == document["title"]
    assert fresh["ETag"] != first["ETag"]
    assert fresh["Last-Modified"] == client.get("/api/cases/IL-0428")["Last-Modified"]


def test_a_write_through_another_cache_is_served_at_once(
    client, settings, store_cache_on, django_capture_on_commit_callbacks
):
    record_servers_cache()
    server_caches = settings.CACHES
    first = client.get("/api/cases/IL-0429")

    # Another server (or a command) with a cache of its own and the store cache on.
    settings.CACHES = CLI_CACHE
    document = edited_title("IL-0429")
    committed(
        django_capture_on_commit_callbacks, lambda: save_case_document(document, reason="another server")
    )
    settings.CACHES = server_caches

    fresh = client.get("/api/cases/IL-0429")
    assert fresh.json()["title"] == document["title"]
    assert fresh["ETag"] != first["ETag"]


def test_a_server_without_the_store_cache_records_nothing(settings):
    settings.STORE_CACHE = False
    record_servers_cache()
    assert not ServersCache.objects.exists()


def test_a_server_started_without_the_store_cache_removes_the_old_record(settings):
    """Servers moved off Redis: a command's write no longer tells (nor is refused for) the
    cache the servers used before."""
    ServersCache.objects.create(pk=1, config=DOWN_REDIS)
    settings.STORE_CACHE = False
    servers_started()  # a server's start, without CACHE_URL
    assert not ServersCache.objects.exists()
    document = edited_title("IL-0428")
    save_case_document(document, reason="command line")
    assert Case.objects.get(pk="IL-0428").title == document["title"]


def test_a_server_started_with_the_store_cache_records_it(settings, store_cache_on):
    ServersCache.objects.create(pk=1, config=DOWN_REDIS)
    servers_started()
    assert list(ServersCache.objects.values_list("config", flat=True)) == [settings.CACHES["default"]]


def test_a_server_whose_cache_does_not_answer_records_nothing(settings):
    """Recorded, a dead cache would refuse every later write, even once that server is
    stopped and the others run with a cache that works."""
    settings.CACHES = {"default": DOWN_REDIS}
    settings.STORE_CACHE = True
    record_servers_cache()
    assert not ServersCache.objects.exists()


def test_a_write_that_cannot_tell_the_servers_cache_is_refused(settings):
    ServersCache.objects.create(pk=1, config=DOWN_REDIS)
    settings.STORE_CACHE = False
    before = Case.objects.get(pk="IL-0428").title
    with pytest.raises(SharedCacheUnreachable, match="CACHE_URL") as refused:
        save_case_document(edited_title("IL-0428"), reason="command line")
    assert "redis://127.0.0.1:1/0" in str(refused.value)
    assert Case.objects.get(pk="IL-0428").title == before


def test_the_import_command_refuses_naming_cache_url(settings, tmp_path):
    ServersCache.objects.create(pk=1, config=DOWN_REDIS)
    settings.STORE_CACHE = False
    [path] = write_cases(tmp_path, [synthetic_case(1)])
    with pytest.raises(CommandError, match=r"import refused: nothing was written: .*CACHE_URL"):
        call_command("import_cases", str(path))
    assert not Case.objects.filter(pk=synthetic_case(1)["id"]).exists()
