"""triage reports `lines_read`, the log engine's count of the lines it read, as `match_log`,
`POST /api/match` and the /match/ page do. It reported `lines_scanned`, str.splitlines() of
the log, which ends a line at a carriage return or a form feed where the engine splits at
newlines only: a progress bar's "step 1\\rstep 2\\rstep 3" was 3 lines to triage, 1 to
match_log. (match_log's own `lines_scanned` went the same way: `lines_read`, no alias.)"""

from __future__ import annotations

import json

LOG = (
    "step 1\rstep 2\rstep 3\n\x0cNCCL error: unhandled system error\n"
    "Watchdog caught collective operation timeout\n"
)


def test_triage_counts_the_lines_the_engine_read_at_every_door(mcp, client):
    match = client.post("/api/match", json.dumps({"text": LOG}), content_type="application/json").json()
    api = client.post("/api/triage", {"text": LOG}, content_type="application/json").json()
    tool = mcp.ok("triage", text=LOG)
    assert match["reading"]["lines_read"] == mcp.ok("match_log", text=LOG)["lines_read"] == 3
    assert api["lines_read"] == tool["lines_read"] == 3
    assert "lines_scanned" not in api and "lines_scanned" not in tool


def test_without_a_log_no_line_was_read(mcp, client):
    api = client.post("/api/triage", {"symptoms": "NCCL watchdog timeout"}, content_type="application/json")
    assert api.json()["lines_read"] == 0
    assert mcp.ok("triage", symptoms="NCCL watchdog timeout", text=" \n \n")["lines_read"] == 0
