"""`make test` finds Chromium when installed, installs it only when missing, waits for a
held package lock (bounded, with a clear message) and says what it is doing (issue 14.9).

The script runs against a PATH holding only fakes: a fake `apt-get` records its calls and
plays out a scenario (lock held N times, then success that "installs" a fake chromium).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings

from tests.tooling.conftest import run_child

SCRIPT = Path(settings.BASE_DIR) / "scripts" / "ensure-chromium.sh"

FAKE_APT = """#!/bin/bash
echo "$*" >> "$FAKE_DIR/apt-calls"
held=$(cat "$FAKE_DIR/lock-held" 2>/dev/null || echo 0)
if [ "$held" -gt 0 ]; then
  echo $((held - 1)) > "$FAKE_DIR/lock-held"
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
  exit 100
fi
if [ "$FAKE_APT_FAILS" = "1" ]; then echo "E: Unable to locate package chromium" >&2; exit 100; fi
case "$*" in
  *install*) printf '#!/bin/sh\\n' > "$FAKE_DIR/bin/chromium"; chmod +x "$FAKE_DIR/bin/chromium";;
esac
"""


def run(tmp_path: Path, *, lock_held: int = 0, apt_fails: bool = False, chromium_env: str | None = None):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("bash", "cat", "grep", "mktemp", "rm", "sleep", "id", "chmod", "printf"):
        target = bin_dir / tool
        if not target.exists():
            target.symlink_to(run_child("which", tool).stdout.strip())
    apt = bin_dir / "apt-get"
    apt.write_text(FAKE_APT)
    apt.chmod(0o755)
    (tmp_path / "lock-held").write_text(str(lock_held))
    env = {
        "PATH": str(bin_dir),
        "FAKE_DIR": str(tmp_path),
        "FAKE_APT_FAILS": "1" if apt_fails else "0",
        "APT_LOCK_WAIT": "3",
        "APT_RETRY_EVERY": "0",
        "HOME": os.environ.get("HOME", "/root"),
    }
    if chromium_env:
        env["CHROMIUM"] = chromium_env
    result = run_child("bash", SCRIPT, env=env, check=False, timeout=60)
    calls_file = tmp_path / "apt-calls"
    calls = calls_file.read_text().splitlines() if calls_file.exists() else []
    return result, calls


@pytest.fixture(autouse=True)
def _root_only():
    # The script installs only as root; these scenarios are the root ones (as in CI).
    if os.geteuid() != 0:
        pytest.fail("these tests run the install path, which needs root (as CI has)")


def test_an_installed_chromium_is_used_and_nothing_is_installed(tmp_path):
    (tmp_path / "bin").mkdir()
    chromium = tmp_path / "bin" / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    result, calls = run(tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"browser tests: using Chromium at {chromium}"
    assert calls == []


def test_the_chromium_variable_wins(tmp_path):
    own = tmp_path / "my-chrome"
    own.write_text("#!/bin/sh\n")
    own.chmod(0o755)
    result, calls = run(tmp_path, chromium_env=str(own))
    assert (result.returncode, result.stdout.strip(), calls) == (
        0,
        f"browser tests: using Chromium at {own}",
        [],
    )


def test_a_missing_chromium_is_installed_with_apt_get(tmp_path):
    result, calls = run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert [c.split()[-1] for c in calls] == ["update", "chromium"]
    assert "no Chromium found; installing Debian's chromium package" in result.stdout
    assert f"installed Chromium at {tmp_path / 'bin' / 'chromium'}" in result.stdout


def test_a_held_lock_is_waited_for_then_the_install_goes_on(tmp_path):
    result, calls = run(tmp_path, lock_held=2)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("another apt-get or dpkg holds the package lock; waiting") == 2
    assert [c.split()[-1] for c in calls] == ["update", "update", "update", "chromium"]
    assert "installed Chromium at" in result.stdout


def test_a_lock_held_too_long_stops_with_a_clear_message(tmp_path):
    result, calls = run(tmp_path, lock_held=100)
    assert result.returncode == 1
    assert "gave up after 3s: another apt-get or dpkg still holds the package lock" in result.stderr
    assert "apt-get install chromium" in result.stderr
    assert len(calls) == 4  # waited 0, 1, 2, 3 "seconds" (APT_RETRY_EVERY=0 counts 1 a try)


def test_any_other_apt_failure_is_shown_not_retried(tmp_path):
    result, calls = run(tmp_path, apt_fails=True)
    assert result.returncode == 1
    assert "Unable to locate package chromium" in result.stderr
    assert "apt-get update failed (output above)" in result.stderr
    assert calls == ["-q -o DPkg::Lock::Timeout=0 update"]
