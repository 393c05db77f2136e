"""Every triage case says why it is listed, in words, as search and log matching say it of
their hits (`why.text`): the word search's `why` (`Matches: ...`), then the log matching's
(`Shares: ... (line 2)`), the same over MCP and `POST /api/triage`.

A new user's walkthrough saw strong triage cases whose `why` was empty (no term matched, no
log line, no context): the words search matched (`results.why_listed`) were dropped."""

from __future__ import annotations

from incidents.search import read_log, search_cases

WATCHDOG_LINE = (
    "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE,"
    " NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 milliseconds before timing out."
)
LOG = (
    "INFO vllm.engine serving requests\n"
    "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout:"
    " WorkNCCL(SeqNum=20518, OpType=ALLREDUCE, Timeout(ms)=1800000)\n"
)


def test_a_case_found_by_the_symptoms_words_says_which_words(mcp, client):
    answer = mcp.ok("triage", symptoms=WATCHDOG_LINE)
    results = search_cases(query=WATCHDOG_LINE, limit=10, facets=False)
    said = {hit.case.id: hit.why for hit in [*results.hits, *results.partial_hits]}
    assert [c["id"] for c in answer["cases"]][:2] == ["IL-0615", "IL-0463"]
    for case in answer["cases"]:
        # Not one of them carries a term of the line: its words are why it is listed.
        assert case["why"]["matched_terms"] == [] and case["why"]["line_numbers"] == []
        assert case["why"]["text"] == said[case["id"]] and said[case["id"]].startswith("Matches: ")
    from_api = client.post("/api/triage", {"symptoms": WATCHDOG_LINE}, content_type="application/json")
    assert [c["why"] for c in from_api.json()["cases"]] == [c["why"] for c in answer["cases"]]


def test_a_case_found_by_both_says_the_words_then_the_log_lines(mcp):
    answer = mcp.ok("triage", symptoms="vllm hangs", text=LOG)
    words = {h.case.id: h.why for h in search_cases(query="vllm hangs", limit=10, facets=False).hits}
    lines = {h.case.id: h.why for h in read_log(LOG, limit=10).hits}
    assert answer["cases"]
    for case in answer["cases"]:
        expected = " ".join(why for why in (words.get(case["id"]), lines.get(case["id"])) if why)
        # Cut to 200 characters as the other texts of a case are (`triage.Detail`).
        assert case["why"]["text"] == (expected if len(expected) <= 200 else expected[:199].rstrip() + "…")
        assert case["why"]["text"], case["id"]
    both = [c for c in answer["cases"] if c["id"] in words and c["id"] in lines]
    assert both and all(c["why"]["text"].startswith(f"{words[c['id']]} ") for c in both)
