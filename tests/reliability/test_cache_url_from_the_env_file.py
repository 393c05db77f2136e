"""CACHE_URL written in the `.env` file configures every process that reads the settings (a
server, `manage.py import_cases`) as if it were in its environment: the shared cache and the
store cache with it, so commands and servers share one store generation."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

from tests.reliability.scratch import ROOT

SCRIPT = (
    "import json, django; django.setup(); from django.conf import settings; "
    "print(json.dumps([settings.CACHES['default']['LOCATION'], settings.STORE_CACHE]))"
)


def test_cache_url_in_the_env_file_turns_the_shared_cache_on(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"SECRET_KEY={secrets.token_urlsafe(50)}\nALLOWED_HOSTS=127.0.0.1\nCACHE_URL=redis://127.0.0.1:6379/8\n",
        encoding="utf-8",
    )
    environment = {key: value for key, value in os.environ.items() if key not in {"CACHE_URL", "STORE_CACHE"}}
    environment.update({"ENV_FILE": str(env_file), "DJANGO_SETTINGS_MODULE": "incidentlib.settings"})
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == ["redis://127.0.0.1:6379/8", True]
