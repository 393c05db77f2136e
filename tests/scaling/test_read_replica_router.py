"""Reads to replicas, writes to the primary: the router's rules, then two real database
aliases configured by environment (DATABASE_REPLICA_URLS) in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.signals import request_started

from incidentlib import db_router
from incidentlib.db_router import ReplicaRouter, primary_reads
from incidents.models import Case
from tests.conftest import VOCAB_FILE
from tests.factories import synthetic_case, write_cases
from tests.reliability.scratch import ROOT

REPLICAS = ["replica1", "replica2"]


class CacheEntry:
    """Stands for the database cache's model (Django gives it the app label django_cache)."""

    class _meta:
        app_label = "django_cache"


@pytest.fixture
def router(monkeypatch):
    monkeypatch.setattr(db_router, "replica_aliases", lambda: REPLICAS)
    db_router._forget_writes()  # a fresh request: no write yet
    return ReplicaRouter()


def test_reads_outside_a_transaction_go_to_a_replica(router):
    assert {router.db_for_read(Case) for _ in range(50)} == set(REPLICAS)


def test_writes_and_migrations_go_to_the_primary(router):
    assert router.db_for_write(Case) == "default"
    assert router.allow_migrate("default", "incidents")
    assert not router.allow_migrate("replica1", "incidents")


def test_after_a_write_the_request_reads_the_primary_until_the_next_request(router):
    router.db_for_write(Case)
    assert router.db_for_read(Case) == "default"
    # What runs when the next request starts (sending the signal here would also run
    # Django's own receivers, which open a connection).
    assert "incidentlib.db_router.forget_writes" in [r[0][0] for r in request_started.receivers]
    db_router._forget_writes()
    assert router.db_for_read(Case) in REPLICAS


@pytest.fixture(params=["own file", "primary"])
def cache_place(request, monkeypatch) -> str:
    """The database cache in its own SQLite file (the `cache` alias), or on the primary."""
    databases = {"default": settings.DATABASES["default"]}
    if request.param == "own file":
        databases["cache"] = {"ENGINE": "django.db.backends.sqlite3", "NAME": "cache.sqlite3"}
    monkeypatch.setattr(settings, "DATABASES", databases)
    return "cache" if request.param == "own file" else "default"


def test_the_database_cache_stays_in_its_place_and_pins_nothing(router, cache_place):
    assert router.db_for_write(CacheEntry) == cache_place
    assert router.db_for_read(CacheEntry) == cache_place
    assert router.db_for_read(Case) in REPLICAS


def test_the_cache_table_is_created_in_its_place_only(router, cache_place):
    assert router.allow_migrate(cache_place, "django_cache", "CacheEntry")
    assert not any(
        router.allow_migrate(other, "django_cache", "CacheEntry")
        for other in {"default", "cache", "replica1"} - {cache_place}
    )
    assert not router.allow_migrate("cache", "incidents", "Case")


def test_reads_pinned_to_the_primary_for_cached_values(router):
    with primary_reads():
        assert router.db_for_read(Case) == "default"
    assert router.db_for_read(Case) in REPLICAS


@pytest.mark.django_db
def test_reads_inside_a_transaction_go_to_the_primary(router):
    # pytest-django runs this test inside a transaction, as a write service runs.
    assert router.db_for_read(Case) == "default"


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


SCRIPT = """
import json
from django.conf import settings
from django.db import transaction
from incidents.models import Case
with transaction.atomic():
    in_transaction = Case.objects.count()
print(json.dumps({
    "aliases": sorted(settings.DATABASES),
    "routers": settings.DATABASE_ROUTERS,
    "read": Case.objects.count(),
    "in_transaction": in_transaction,
    "store_cache": settings.STORE_CACHE,
    "cache": settings.CACHES["default"]["BACKEND"],
}))
"""


def test_two_aliases_from_the_environment_read_the_replica_and_write_the_primary(tmp_path):
    base = {**os.environ, "LOG_FORMAT": "text"}
    base.pop("CACHE_URL", None)
    primary, replica = tmp_path / "primary.sqlite3", tmp_path / "replica.sqlite3"
    for path in (primary, replica):
        manage({**base, "DATABASE_URL": f"sqlite:///{path}"}, "migrate", "--no-input")
    # Only the primary holds a case: a replica that has not caught up yet.
    [case] = write_cases(tmp_path / "cases", [synthetic_case(1)])
    primary_env = {**base, "DATABASE_URL": f"sqlite:///{primary}"}
    manage(primary_env, "import_cases", "--vocab", str(VOCAB_FILE), str(case))
    env = {
        **base,
        "DATABASE_URL": f"sqlite:///{primary}",
        "DATABASE_REPLICA_URLS": f"sqlite:///{replica}",
        # Not 13: the bench's cache (BENCH_CACHE_URL), whose generation keys this would overwrite.
        "CACHE_URL": "redis://127.0.0.1:6379/15",
    }
    seen = json.loads(manage(env, "shell", "-c", SCRIPT).strip().splitlines()[-1])
    assert seen == {
        "aliases": ["default", "replica1"],
        "routers": ["incidentlib.db_router.ReplicaRouter"],
        "read": 0,
        "in_transaction": 1,
        "store_cache": True,
        "cache": "incidentlib.redis_cache.SharedPoolRedisCache",
    }


def test_empty_database_and_cache_urls_mean_the_defaults():
    """`DATABASE_URL=` and `CACHE_URL=` (set but empty) start with the defaults, not a crash."""
    env = {**os.environ, "LOG_FORMAT": "text", "DATABASE_URL": "", "CACHE_URL": ""}
    script = (
        "import json; from django.conf import settings; print(json.dumps(["
        "settings.DATABASES['default']['ENGINE'], str(settings.DATABASES['default']['NAME']),"
        " settings.CACHES['default']['BACKEND'], settings.STORE_CACHE]))"
    )
    engine, name, cache, store_cache = json.loads(manage(env, "shell", "-c", script).strip().splitlines()[-1])
    assert engine == "django.db.backends.sqlite3"
    assert name == str(ROOT / "var" / "incidentlib.sqlite3")
    assert cache == "django.core.cache.backends.db.DatabaseCache"
    assert store_cache is False
