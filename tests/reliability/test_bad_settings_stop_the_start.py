"""A bad value in the environment stops the start with one message that names the variable,
quotes the value and says what it accepts, instead of an obscure error at start-up or at the
first request (settings loaded in a child process with the environment set)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "rates = s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']; "
    "print(json.dumps([s.LOG_FORMAT, s.LOG_LEVEL, rates['api'], s.DEBUG]))"
)


def load_settings(**env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CACHE_URL", "DEBUG", "LOG_FORMAT", "LOG_LEVEL"}
        and not key.startswith(("DJANGO_", "API_", "DB_POOL_", "DATABASE_"))
    }
    environment.update(DJANGO_SETTINGS_MODULE="incidentlib.settings", **env)
    return subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("LOG_FORMAT", "yaml", "expected one of json, text (in any case)"),
        ("LOG_LEVEL", "loud", "expected one of debug, info, warning, error, critical (in any case)"),
        ("DATABASE_URL", "il_walk", "expected a database URL, postgres://"),
        ("DATABASE_REPLICA_URLS", "notaurl", "expected a database URL, postgres://"),
        ("DB_POOL_MAX_SIZE", "abc", "expected a whole number from 0 up"),
        ("DB_POOL_TIMEOUT", "soon", "expected a number greater than 0"),
        ("API_THROTTLE_RATE", "lots", "expected requests per period, e.g. 240/minute"),
        ("API_HEAVY_THROTTLE_RATE", "30/fortnight", "expected requests per period, e.g. 240/minute"),
        ("PROPOSAL_THROTTLE_RATE", "0/hour", "expected requests per period, e.g. 240/minute"),
        ("API_NUM_PROXIES", "-1", "expected a whole number from 0 up"),
        ("DEBUG", "maybe", "expected true/1/yes/on or false/0/no/off (in any case)"),
        ("STORE_CACHE", "sometimes", "expected true/1/yes/on or false/0/no/off (in any case)"),
        ("PORT", "80000", "expected a whole number from 1 to 65535"),
        ("CACHE_URL", "memcached-somewhere", "expected a cache URL, redis://host:6379/0"),
        ("SITE_URL", "kb.example.org", "expected an http:// or https:// URL with a host"),
        ("SEARCH_CONCURRENCY", "0", "expected a whole number from 1 up"),
        ("ALLOWED_HOSTS", "https://kb.example.org", "expected host names, comma-separated"),
    ],
)
def test_a_bad_value_stops_the_start_naming_the_variable(name, value, accepted):
    result = load_settings(**{name: value})
    assert result.returncode != 0 and result.stdout == ""
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith(f"  - {name}={value!r} is not accepted: {accepted}"), result.stderr
    assert "django.core.exceptions.ImproperlyConfigured: 1 setting(s)" in result.stderr


def test_every_bad_value_is_named_in_one_message():
    result = load_settings(DEBUG="maybe", DB_POOL_MAX_SIZE="abc", LOG_FORMAT="yaml")
    problems = [line for line in result.stderr.splitlines() if line.startswith("  - ")]
    assert [line.split("=")[0] for line in problems] == [
        "  - DEBUG",
        "  - DB_POOL_MAX_SIZE",
        "  - LOG_FORMAT",
    ]
    assert "3 setting(s) in the environment or .env cannot be used" in result.stderr


def test_a_password_in_a_bad_database_url_is_not_repeated():
    result = load_settings(DATABASE_URL="postgres://editor:s3cret@db.internal:abc/incidentlib")
    assert "DATABASE_URL='postgres://editor:***@db.internal:abc/incidentlib' is not accepted" in result.stderr
    assert "s3cret" not in result.stderr


def test_replicas_of_another_kind_than_the_primary_are_refused():
    result = load_settings(
        DATABASE_URL="sqlite:///var/incidentlib.sqlite3",
        DATABASE_REPLICA_URLS="postgres://replica1/incidentlib",
    )
    assert result.returncode != 0
    assert "DATABASE_REPLICA_URLS names PostgreSQL databases while DATABASE_URL is SQLite" in result.stderr


def test_replicas_of_a_sqlite_primary_start_with_a_warning(tmp_path):
    result = load_settings(DATABASE_REPLICA_URLS=f"sqlite:///{tmp_path / 'replica.sqlite3'}")
    assert result.returncode == 0, result.stderr
    assert "RuntimeWarning: DATABASE_REPLICA_URLS with a SQLite DATABASE_URL" in result.stderr


def test_values_are_read_in_any_case_and_written_as_the_app_needs_them():
    result = load_settings(LOG_FORMAT="JSON", LOG_LEVEL="info", API_THROTTLE_RATE="100/Minutes", DEBUG="Yes")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '["json", "INFO", "100/minute", true]'


def test_an_empty_rate_switches_the_limit_off_and_empty_numbers_mean_the_default():
    result = load_settings(API_THROTTLE_RATE="", DB_POOL_MAX_SIZE="", LOG_FORMAT="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '["json", "WARNING", null, false]'
