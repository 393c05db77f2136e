"""Production settings: refuse to start when unsafe, and pass Django's own deployment check."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings

ROOT = settings.BASE_DIR


def run(code_or_args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "HTTPS"} and not key.startswith("DJANGO_")
    }
    # No .env file: only what the test passes counts.
    environment.update({"ENV_FILE": "/nonexistent/.env", "DJANGO_SETTINGS_MODULE": "incidentlib.settings"})
    environment.update(env)
    return subprocess.run(
        [sys.executable, *code_or_args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


SETUP = ["-c", "import django; django.setup(); print('started')"]
GOOD_KEY = secrets.token_urlsafe(50)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ALLOWED_HOSTS": "kb.example.org"}, "SECRET_KEY must be set to a random value"),
        ({"ALLOWED_HOSTS": "kb.example.org", "SECRET_KEY": "short"}, "at least 50 characters"),
        ({"ALLOWED_HOSTS": "kb.example.org", "SECRET_KEY": "a" * 60}, "SECRET_KEY must be set to a random"),
        ({"SECRET_KEY": GOOD_KEY}, "ALLOWED_HOSTS must be set when DEBUG is off"),
    ],
)
def test_without_debug_the_app_refuses_to_start_unsafe(env, message):
    result = run(SETUP, DEBUG="0", **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and message in result.stderr
    assert "started" not in result.stdout


def test_with_a_real_key_and_hosts_it_starts():
    result = run(SETUP, DEBUG="0", SECRET_KEY=GOOD_KEY, ALLOWED_HOSTS="kb.example.org")
    assert (result.returncode, result.stdout.strip()) == (0, "started"), result.stderr


def test_debug_alone_starts_with_the_development_key():
    result = run(SETUP, DEBUG="1")
    assert (result.returncode, result.stdout.strip()) == (0, "started"), result.stderr


def test_check_deploy_reports_nothing_under_production_settings():
    result = run(
        ["manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
        DEBUG="0",
        SECRET_KEY=GOOD_KEY,
        ALLOWED_HOSTS="kb.example.org",
        HTTPS="true",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."
