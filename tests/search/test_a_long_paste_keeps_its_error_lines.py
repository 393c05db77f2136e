"""A paste longer than `MAX_GROUPS` words keeps the words of its lines showing an error.

The walk (W12) pasted four log lines in the search box (under 500 characters): two DeepSpeed
step lines, an NCCL INFO line, then NCCL's `NET/IB : Got completion from peer ... with
status=12 ... vendor err 129`, IL-0450's signature. Only the first 32 words were searched,
the step numbers and the INFO line: "No case matches", IL-0450 a weak partial match. The
lines showing a failure (`log_tokens.signature_tokens`) are now searched first, the others
filling up from the start; a query with no such line past the cut is cut as before.
"""

from __future__ import annotations

import pytest

from incidents import search
from incidents.search.query import MAX_GROUPS, parse_query

# ruff: noqa: E501 - real log lines are long and are kept whole
STEPS = """\
[2026-12-07 21:14:08,611] [INFO] [engine.py:3065:train_batch] step=41200 loss=1.8234 lr=2.4e-4 grad_norm=0.91
[2026-12-07 21:14:09,871] [INFO] [engine.py:3065:train_batch] step=41201 loss=1.8192 lr=2.4e-4 grad_norm=0.88
node-047:1832:2011 [3] NCCL INFO Channel 02/0 : 383[3] -> 391[3] [send] via NET/IB/3/GDRDMA
"""
ERROR = "node-047:1832:2011 [3] NCCL INFO NET/IB : Got completion from peer 10.12.4.88<44213> with status=12 opcode=0 len=0 vendor err 129 (Recv)"
PASTE = STEPS + ERROR


def searched(query: str) -> list[str]:
    return [" ".join(atom.words) for group in parse_query(query).groups for atom in group[:1]]


def test_the_error_line_is_searched_and_the_note_says_which_line():
    parsed = parse_query(PASTE)
    assert len(PASTE) < 500  # the query's own limit (MAX_QUERY_CHARS) does not cut it
    assert len(searched(STEPS)) < MAX_GROUPS < len(searched(STEPS)) + len(searched(ERROR))
    kept = searched(PASTE)
    assert len(kept) == MAX_GROUPS
    # Every word of the error line, after the first words of the step lines, in paste order.
    assert kept[-len(searched(ERROR)) :] == searched(ERROR)
    assert kept[: MAX_GROUPS - len(searched(ERROR))] == searched(STEPS)[: MAX_GROUPS - len(searched(ERROR))]
    assert parsed.notes == [
        "Only 32 words of the query were searched: those of its line 4, showing an error, then the"
        " first of the others."
    ]


def test_a_paste_without_an_error_line_past_the_cut_is_cut_at_its_start():
    # The error line first: its words are within the first 32 already.
    error_first = ERROR + "\n" + STEPS
    assert searched(error_first) == (searched(ERROR) + searched(STEPS))[:MAX_GROUPS]
    parsed = parse_query(error_first)
    assert parsed.notes == ["Only the first 32 words of the query were searched."]
    # One line (a browser's text box joins a paste's lines): cut at its start, as before.
    one_line = PASTE.replace("\n", " ")
    assert searched(one_line) == (searched(STEPS) + searched(ERROR))[:MAX_GROUPS]
    assert parse_query(one_line).notes == ["Only the first 32 words of the query were searched."]


def test_error_lines_longer_than_the_cut_keep_their_first_words():
    errors = "\n".join([ERROR.replace("err 129", f"err {n}") for n in (129, 130)])
    paste = STEPS.splitlines()[0] + "\n" + errors
    assert len(paste) < 500 and 2 * len(searched(ERROR)) > MAX_GROUPS
    kept = searched(paste)
    assert kept == searched(errors)[:MAX_GROUPS]
    assert parse_query(paste).notes == [
        "Only the first 32 words of the query's lines 2, 3, showing an error, were searched."
    ]


@pytest.mark.django_db
def test_the_case_quoting_the_error_is_a_match():
    results = search.search_cases(query=PASTE, limit=10)
    assert [(hit.case.id, hit.confidence) for hit in results.hits] == [("IL-0450", "possible")]
    assert (
        "Only 32 words of the query were searched: those of its line 4, showing an error, then the first of the others."
        in results.notes
    )
