"""`PORT=9000 make run` serves on 9000; MCP over stdio, which a desktop client starts with the
README's configuration (no PORT), linked its results to http://127.0.0.1:8000 all the same,
since nothing recorded the port. `make run` now writes `SITE_URL` to `.env`
(`scripts/record_site_url.py`), which every process of the checkout reads."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
SCRIPT = ROOT / "scripts" / "record_site_url.py"
# What the Makefile's .env target writes.
FRESH = f"SECRET_KEY={secrets.token_urlsafe(50)}\nALLOWED_HOSTS=127.0.0.1,localhost,[::1]\n"


def clean_environment(**env: str) -> dict[str, str]:
    """This environment without the settings the test decides (as a desktop client's)."""
    keep = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PORT", "SITE_URL", "SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "MAKEFLAGS", "MAKELEVEL"}
        and not key.startswith("DJANGO_")
    }
    return {**keep, **env}


def record(env_file: Path, url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(env_file), url], capture_output=True, text=True, timeout=60
    )


def links_read_with(env_file: Path) -> str:
    """The web page link of IL-0428 as an MCP result gives it, in a process started as the
    stdio server is: the settings from `env_file`, no PORT."""
    code = (
        "import django; django.setup(); from mcp_server.links import case_links; "
        "print(case_links('IL-0428')['html_url'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean_environment(ENV_FILE=str(env_file), DJANGO_SETTINGS_MODULE="incidentlib.settings"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_make_run_records_its_address_before_serving():
    result = subprocess.run(
        ["make", "-n", "run", "PORT=9123"],
        cwd=ROOT,
        env=clean_environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    commands = result.stdout.splitlines()
    recording = 'python3 scripts/record_site_url.py .env "${SITE_URL:-http://127.0.0.1:9123}"'
    serving = [c for c in commands if "uvicorn" in c]
    assert recording in commands and serving
    assert commands.index(recording) < commands.index(serving[0])


def test_the_stdio_server_links_to_the_port_make_run_served(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(FRESH, encoding="utf-8")
    assert links_read_with(env_file) == "http://127.0.0.1:8000/cases/IL-0428"  # the old answer
    assert record(env_file, "http://127.0.0.1:9123").returncode == 0
    assert links_read_with(env_file) == "http://127.0.0.1:9123/cases/IL-0428"
    # Served elsewhere next time: the line is replaced, the rest of the file kept.
    record(env_file, "http://127.0.0.1:9124")
    assert env_file.read_text(encoding="utf-8") == FRESH + "SITE_URL=http://127.0.0.1:9124\n"


def test_a_site_url_of_ones_own_is_kept(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(FRESH + "SITE_URL=https://kb.example.org\n", encoding="utf-8")
    result = record(env_file, "http://127.0.0.1:9123")
    assert result.returncode == 0
    assert "sets its own SITE_URL: kept" in result.stderr
    assert env_file.read_text(encoding="utf-8") == FRESH + "SITE_URL=https://kb.example.org\n"
    assert links_read_with(env_file) == "https://kb.example.org/cases/IL-0428"
