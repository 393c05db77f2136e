"""The README's walkthrough table (calls and bytes per on-call scenario, before and after
`triage`) is what `eval/mcp_walkthrough.py` measures now: it fails when a change to a tool's
output, the scenarios or the library leaves the table stale."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from django.conf import settings
from django.db import connection

from mcp_server.server import build_server
from tests.mcp.scenarios import SCENARIOS

sys.path.insert(0, str(Path(settings.BASE_DIR)))

from eval import mcp_walkthrough as walkthrough  # noqa: E402

README = Path(settings.BASE_DIR) / "README.md"


def test_the_readme_table_is_what_the_walkthrough_measures(db):
    rows = anyio.run(walkthrough.measure, build_server())
    assert [row["scenario"] for row in rows] == [scenario.name for scenario in SCENARIOS]
    # One triage call puts the right case first within 8 KB, in every scenario.
    assert all(row["after_calls"] == 1 and row["after_first"] for row in rows)
    assert all(row["after_bytes"] <= 8_000 < row["before_bytes"] for row in rows)
    # The README's byte figures are SQLite's (PostgreSQL ranks some hits of the five-call
    # path differently); on PostgreSQL the run above is the check.
    if connection.vendor == "sqlite":
        assert walkthrough.current_block(README.read_text(encoding="utf-8")) == walkthrough.render(rows), (
            "README.md's walkthrough table is stale: run `python eval/mcp_walkthrough.py --write README.md`"
        )


def test_the_table_renders_each_row_and_is_replaced_between_its_markers():
    rows = [
        {
            "scenario": "a hang",
            "before_calls": 5,
            "before_bytes": 17_687,
            "before_found": False,
            "after_calls": 1,
            "after_bytes": 6_674,
            "after_first": True,
        }
    ]
    block = walkthrough.render(rows)
    assert block.splitlines()[-2] == "| a hang | 5 | 17,687 | **no** | 1 | 6,674 | yes |"
    text = f"# Title\n\n{walkthrough.START}\nold\n{walkthrough.END}\n\nAfter.\n"
    assert walkthrough.replace_block(text, block) == f"# Title\n\n{block}\n\nAfter.\n"
    with pytest.raises(ValueError, match="marker"):
        walkthrough.current_block("# no markers here\n")
