"""Log matching reads error codes with the codes' own RE2 patterns (issue 15): the codes a
pasted log shows are reported with their lines, the cases carrying one rank up, and the
page, `POST /api/match` and MCP `match_log` say the same (one engine, `read_log`)."""

from __future__ import annotations

import json

import pytest

from incidents import selectors
from incidents.models import Case, Facet
from incidents.search import log_scores, read_log

pytestmark = pytest.mark.django_db

LOG = (
    "[Mon Jun  3 02:41:17 2024] NVRM: Xid (PCI:0000:87:00): 79, pid='<unknown>', GPU has fallen off the bus\n"
    "step 1200 loss 2.31\n"
    "node-17:2231:2301 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with error 12, opcode 0\n"
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242\n"
)


def carrying(slug: str) -> set[str]:
    return set(
        Case.objects.published()
        .filter(terms__facet=Facet.ERROR_CODE, terms__slug=slug)
        .values_list("id", flat=True)
    )


def test_the_codes_a_log_shows_are_reported_with_their_lines():
    reading = read_log(LOG)
    found = [(c.term.slug, c.term.name, c.line_numbers, c.term.case_count) for c in reading.error_codes]
    assert found == [
        ("ibv-wc-retry-exc-err", "IBV_WC_RETRY_EXC_ERR", (3,), len(carrying("ibv-wc-retry-exc-err"))),
        (
            "nccl-net-ib-completion-error",
            "NET/IB completion error",
            (3,),
            len(carrying("nccl-net-ib-completion-error")),
        ),
        ("xid-79", "Xid 79", (1, 4), 2),
    ]


def test_a_date_or_hours_near_a_number_are_no_code():
    reading = read_log("Xid 7 at 2024-07-09 after 79 hours\nran 79 hours before Xid 13X\n")
    assert [c.term.slug for c in reading.error_codes] == []


def test_the_cases_carrying_a_code_rank_up_by_its_weight(monkeypatch):
    # The first hit's similar cases gain with its score (`log_scores.like_the_first`): left out here,
    # where only what carrying a code adds is compared.
    monkeypatch.setattr(log_scores, "like_the_first", lambda scores, best, alike: {})
    with_codes = {hit.case.id: hit.score for hit in read_log(LOG, limit=50).hits}
    monkeypatch.setattr(log_scores, "CODE_WEIGHT", 0.0)
    without = {hit.case.id: hit.score for hit in read_log(LOG, limit=50).hits}
    xid79 = carrying("xid-79")
    assert len(xid79) == 2
    # Only the cases carrying a found code gain; each of them gains.
    gained = {case_id for case_id, score in with_codes.items() if score > without.get(case_id, 0.0)}
    assert gained == xid79 | carrying("ibv-wc-retry-exc-err")
    ranked = list(with_codes)
    assert set(ranked[:2]) == xid79  # the two Xid 79 cases first
    for case_id in set(with_codes) - gained:
        assert with_codes[case_id] == without[case_id]


def test_a_hit_names_the_code_on_its_lines_once():
    hit = next(h for h in read_log(LOG).hits if h.case.id in carrying("xid-79"))
    lines = {line.line_number: line.terms for line in hit.lines}
    assert "Xid 79" in lines[1] and "Xid 79" in lines[4]
    assert lines[1].count("Xid 79") == 1  # the code and the failure token are one name
    numbers = [line.line_number for line in hit.lines]
    assert len(numbers) == len(set(numbers))  # each line once
    assert all(len(line.terms) == len(set(line.terms)) for line in hit.lines)


def test_post_api_match_reports_the_codes(client):
    body = client.post("/api/match", json.dumps({"text": LOG}), content_type="application/json").json()
    codes = body["error_codes"]
    assert [(c["slug"], c["line_numbers"], c["case_count"]) for c in codes] == [
        ("ibv-wc-retry-exc-err", [3], len(carrying("ibv-wc-retry-exc-err"))),
        ("nccl-net-ib-completion-error", [3], len(carrying("nccl-net-ib-completion-error"))),
        ("xid-79", [1, 4], 2),
    ]
    xid = codes[2]
    assert xid["name"] == "Xid 79" and xid["vendor"] == "NVIDIA driver"
    assert xid["html_url"] == "http://testserver/codes/xid-79"
    assert xid["url"] == "http://testserver/api/codes/xid-79"
    assert set(r["id"] for r in body["results"][:2]) == carrying("xid-79")


def test_the_page_lists_the_codes_with_links(client):
    html = client.post("/match/", {"log": LOG}).content.decode()
    assert "Error codes in this log" in html
    assert '<a href="/codes/xid-79">Xid 79</a> (NVIDIA driver), lines 1, 4:' in html
    assert "2 cases showed it; it adds to their score below." in html


def test_mcp_match_log_reports_the_codes(mcp):
    result = mcp.ok("match_log", text=LOG)
    assert result["error_codes"] == ["IBV_WC_RETRY_EXC_ERR", "NET/IB completion error", "Xid 79"]
    assert {h["id"] for h in result["hits"][:2]} == carrying("xid-79")


def test_a_code_no_case_carries_is_still_reported(mcp):
    unused = next(code for code in selectors.error_codes() if code.case_count == 0)
    reading = read_log(f"kernel: {unused.name} on node 17")  # each code's name matches its patterns
    assert [(c.term.slug, c.term.case_count, c.line_numbers) for c in reading.error_codes] == [
        (unused.slug, 0, (1,))
    ]
    result = mcp.ok("match_log", text=f"kernel: {unused.name} on node 17")
    assert result["error_codes"] == [unused.name]
    if not result["hits"]:
        assert result["notes"] == [
            "No case carries these error codes yet: explain_error says what they mean."
        ]
