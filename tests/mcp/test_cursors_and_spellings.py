"""Pure helpers: page cursors, case-id spellings, nearest terms, snippet text."""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from incidents.search import Snippet, SnippetSegment
from incidents.selectors.spelling import closest_case_ids, nearest_terms, normalize_case_id, resolve_term
from mcp_server.cursors import decode_cursor, encode_cursor, query_key
from mcp_server.shaping import snippet_text


def test_a_cursor_round_trips_and_is_bound_to_its_query():
    key = query_key(query="hang", filters={"topic": "training"})
    assert key == query_key(filters={"topic": "training"}, query="hang")
    cursor = encode_cursor(40, key)
    assert decode_cursor(cursor, key) == 40
    assert decode_cursor(None, key) == 0
    with pytest.raises(ToolError, match="different query"):
        decode_cursor(cursor, query_key(query="hang"))


@pytest.mark.parametrize(
    "payload", [{"o": -1, "k": "x"}, {"o": "5", "k": "x"}, {"o": 10**9, "k": "x"}, {"k": "x"}, [1, 2]]
)
def test_forged_cursors_are_refused(payload):
    forged = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode()
    with pytest.raises(ToolError, match="cursor is not valid"):
        decode_cursor(forged, "x")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("IL-0428", "IL-0428"),
        ("il-0428", "IL-0428"),
        ("IL0428", "IL-0428"),
        ("428", "IL-0428"),
        ("IL-123456", "IL-123456"),
        ("nccl hang", "NCCL HANG"),
    ],
)
def test_case_id_spellings(text, expected):
    assert normalize_case_id(text) == expected


def test_closest_ids_by_number_and_none_for_words():
    ids = ["IL-0428", "IL-0431", "IL-0439", "IL-0441", "IL-0500"]
    assert closest_case_ids("IL-0440", ids) == ["IL-0439", "IL-0441", "IL-0431"]
    assert closest_case_ids("IL-0498", ids, limit=1) == ["IL-0500"]
    assert closest_case_ids("IL-4500", ["IL-0449", "IL-0450", "IL-0464"])[0] == "IL-0450"
    assert closest_case_ids("nothing", ids) == []  # no digit: no id is near it


def test_terms_resolve_by_slug_name_or_synonym_and_suggest_near_ones():
    hang = SimpleNamespace(slug="training-hang", name="Training hang", synonyms=["stuck"])
    timeout = SimpleNamespace(slug="nccl-timeout", name="NCCL timeout", synonyms=["watchdog timeout"])
    terms = [hang, timeout]
    assert resolve_term("Training Hang", terms) is hang
    assert resolve_term("WATCHDOG timeout", terms) is timeout
    assert resolve_term("hang", terms) is None
    assert nearest_terms("hang", terms) == [hang]
    assert nearest_terms("nccl timout", terms) == [timeout]
    assert nearest_terms("disk", terms) == []


def test_a_near_identical_slug_beats_a_term_whose_synonym_it_contains():
    latency = SimpleNamespace(slug="elevated-latency", name="Elevated latency", synonyms=["timeouts"])
    timeout = SimpleNamespace(slug="nccl-timeout", name="NCCL timeout", synonyms=[])
    assert nearest_terms("nccl-timeouts", [latency, timeout]) == [timeout, latency]


def test_snippets_become_plain_text_with_bold_matches():
    snippet = Snippet(
        (
            SnippetSegment("…the "),
            SnippetSegment("NCCL", matched=True),
            SnippetSegment(" watchdog & "),
            SnippetSegment("x", styles=("strong",)),
            SnippetSegment("\n  timed out"),
        )
    )
    assert snippet_text(snippet) == "…the **NCCL** watchdog & x timed out"
    assert snippet_text(None) is None
    long = snippet_text(Snippet((SnippetSegment("word " * 200),)))
    assert long is not None and len(long) == 300 and long.endswith("…")


def test_a_match_split_by_a_code_span_edge_stays_one_bold_run():
    snippet = Snippet(
        (
            SnippetSegment("run ", matched=True),
            SnippetSegment("torchrun", matched=True, styles=("code",)),
            SnippetSegment(" now", styles=("code",)),
        )
    )
    assert snippet_text(snippet) == "**run torchrun** now"
