"""The shared virtual environment must never be committed.

Every worktree links `.venv` to the integration checkout's environment; a tracked `.venv`
link, once fast-forwarded into that checkout, replaces the environment with a link to
itself and breaks every helper's tools at once (it happened twice on 1 December).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_dot_venv_is_not_tracked():
    tracked = subprocess.run(
        ["git", "ls-files", "--", ".venv"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked == [], "run `git rm --cached .venv` before landing: .venv must stay untracked"
