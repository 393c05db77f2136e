"""bench/report.md says when and at which commit each run was measured."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_each_run_names_its_own_time_and_commit():
    sys.path.insert(0, str(BENCH))
    try:
        import run  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCH))
    report = json.loads((BENCH / "report.json").read_text())
    text = run.markdown(report)
    for measured in report["runs"]:
        heading = f"## {measured['backend']}, {measured['size']:,} synthetic cases"
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        assert f"- measured {measured['measured']} at {measured['commit']} on {measured['cpu']}" in section
