"""What the tests of the project's tooling share: commands run in child processes (`manage.py`,
`python -c`, `make`, scripts), at the checkout's root, their output read as text."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_child(
    *command: str | Path,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `command` in a child process in `cwd` (the checkout's root unless given) and wait
    for it; its stdout and stderr captured as text. `env` replaces the environment, which is
    otherwise this process's with DJANGO_SETTINGS_MODULE naming the project's settings (as
    `manage.py` sets it). Raises CalledProcessError on a non-zero exit unless `check` is
    false (the test then reads `returncode`), TimeoutExpired after `timeout` seconds."""
    if env is None:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "incidentlib.settings"}
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        check=check,
        timeout=timeout,
    )


def run_python(*args: str | Path, **options) -> subprocess.CompletedProcess[str]:
    """`run_child` of this Python (the test run's virtual environment) with `args`."""
    return run_child(sys.executable, *args, **options)
