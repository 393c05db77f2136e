"""`make help` lists every target of the Makefile's .PHONY list with the first sentence of
the comment above it, read from the Makefile itself, so it stays true as targets change."""

from __future__ import annotations

import re

from tests.tooling.conftest import ROOT, run_child


def phony_targets() -> list[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    [line] = re.findall(r"^\.PHONY:(.*)$", makefile, flags=re.MULTILINE)
    return line.split()


def test_make_help_lists_every_phony_target_with_a_sentence():
    result = run_child("make", "--no-print-directory", "help", check=False)
    assert result.returncode == 0, result.stderr
    listed = dict(line.split(None, 1) for line in result.stdout.splitlines())
    assert sorted(listed) == sorted(phony_targets())
    assert listed["run"] == (
        "Set everything up and serve the site, API and MCP on http://$HOST:$PORT (uvicorn, ASGI, one worker)"
    )
    assert listed["data"] == "Migrate and seed the bundled vocabulary and real cases"
    assert all(sentence.strip() for sentence in listed.values())


def test_make_run_binds_the_host_given():
    plan = run_child("make", "-n", "run", "HOST=0.0.0.0")
    [line] = [line for line in plan.stdout.splitlines() if "incidentlib.asgi:application" in line]
    assert "--host 0.0.0.0 --port " in line
