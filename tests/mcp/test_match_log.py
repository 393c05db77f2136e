"""match_log: pasted log lines in, ranked cases with the lines that matched out."""

from __future__ import annotations

import json

from incidents import search

LOG = """\
[rank3]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error
[rank3]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)
NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.
"""


def test_cases_come_with_the_lines_they_matched(mcp):
    result = mcp.ok("match_log", text=LOG, limit=5)
    expected = search.match_log(LOG, limit=5)
    assert result["lines_read"] == 3
    assert result["hits"] and result["notes"] == []
    assert [(h["id"], h["score"]) for h in result["hits"]] == [
        (h.case.id, round(h.score, 4)) for h in expected
    ]
    for hit, reference in zip(result["hits"], expected, strict=True):
        # One entry per line with all its terms, strongest first: the module's `lines`, which
        # the API's `matched_lines` and the /match/ page show too.
        assert hit["matched_lines"] == [
            {"line_number": line.line_number, "terms": list(line.terms), "occurrences": line.occurrences}
            for line in reference.lines[:5]
        ]
    # Each matched line's text is given once, however many cases matched it.
    numbers = [line["line_number"] for line in result["lines"]]
    assert numbers == sorted({m["line_number"] for h in result["hits"] for m in h["matched_lines"]})
    matched = {line["line_number"]: line["line"] for line in result["lines"]}
    assert matched[1].startswith("[rank3]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp")
    assert matched[3] == "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."


def test_matched_lines_are_capped_per_case(mcp):
    # Lines differing in letters: lines differing only in digits are one line (the next test).
    text = "\n".join(f"[host {chr(97 + host)}] NCCL error: unhandled system error" for host in range(12))
    result = mcp.ok("match_log", text=text, limit=1)
    (hit,) = result["hits"]
    assert [m["line_number"] for m in hit["matched_lines"]] == [1, 2, 3, 4, 5]
    assert "NCCL error" in hit["matched_lines"][0]["terms"]
    lines = search.match_log(text, limit=1)[0].lines
    assert hit["more_matched_lines"] == len(lines) - 5 == 7


def test_a_repeated_line_is_one_matched_line(mcp):
    # Distinct lines, as the page's reading counts them: the copies are read once, and so
    # are lines differing only in their digits (every rank printing it), with their count.
    for text in (
        "\n".join(["NCCL error: unhandled system error"] * 12),
        "\n".join(f"[rank {rank}] NCCL error: unhandled system error" for rank in range(12)),
    ):
        (hit,) = mcp.ok("match_log", text=text, limit=1)["hits"]
        assert [(m["line_number"], m["occurrences"]) for m in hit["matched_lines"]] == [(1, 12)]
        assert hit["more_matched_lines"] == 0


def test_a_log_without_known_signatures_says_what_to_try(mcp):
    assert mcp.ok("match_log", text="all good\nnothing to see") == {
        "lines_read": 2,
        "lines": [],
        "truncated": False,
        "hits": [],
        "error_codes": [],
        "notes": ["No known failure signature found: try search_incidents with the error message."],
    }


def test_lines_read_is_what_the_engine_read_as_the_api_says_it(mcp, client):
    # A progress bar's carriage returns and a form feed end no line for the engine (it splits
    # at "\n" only, as `wc -l` does); the tool counted str.splitlines(), 6 lines to the API's 3.
    text = (
        "step 1\rstep 2\rstep 3\n\x0cNCCL error: unhandled system error\n"
        "Watchdog caught collective operation timeout\n"
    )
    api = client.post("/api/match", json.dumps({"text": text}), content_type="application/json").json()
    assert mcp.ok("match_log", text=text)["lines_read"] == api["reading"]["lines_read"] == 3


def test_empty_and_oversized_text_are_refused(mcp):
    assert mcp.error("match_log", text="") == "Invalid arguments: text must not be empty."
    # A log of blanks is no log, as the API and the page say (it answered "no signature").
    assert mcp.error("match_log", text=" \n\t ") == (
        "Invalid arguments: text must not be empty (it holds only spaces)."
    )
    assert mcp.error("match_log", text="x" * 1_000_001) == (
        "Invalid arguments: text is too long: at most 1000000 characters."
    )


def test_log_as_the_argument_suggests_text(mcp):
    # As POST /api/match suggests it for {"log": ...}: it said "triage takes it", the tool
    # that names its log `log`, though match_log was called for a log.
    assert mcp.error("match_log", log="NCCL WARN").startswith(
        "Unknown argument 'log' (did you mean 'text'?); match_log takes: text, limit."
    )
