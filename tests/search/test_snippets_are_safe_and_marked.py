"""Snippets are plain-text segments with the matches flagged; rendered as HTML, the text is
escaped and the matches are inside <mark>."""

from __future__ import annotations

import re

import pytest

from incidents.rendering import snippet_html
from incidents.search import Snippet, SnippetSegment, search_cases
from incidents.search.snippets import parse_snippet
from incidents.search.text import MARK_END, MARK_START
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def test_snippet_marks_the_matched_words():
    hit = search_cases(query="etcd quota").hits[0]
    assert hit.case.id == "IL-0458"
    assert hit.snippet is not None
    matched = [s.text for s in hit.snippet.segments if s.matched]
    assert matched
    assert {m.lower() for m in matched} <= {"etcd", "quota", "etcd's"}
    html = snippet_html(hit.snippet)
    assert html is not None
    assert re.findall(r"<mark>(.*?)</mark>", html) == matched


def test_snippet_escapes_html_in_case_text(import_synthetic):
    import_synthetic(
        synthetic_case(
            7,
            symptoms={
                "description": "The log said <script>alert('zebrafish')</script> & more",
                "tags": ["Training hang"],
            },
        )
    )
    hit = search_cases(query="zebrafish").hits[0]
    assert hit.case.id == "IL-900007"
    assert hit.snippet is not None
    # The engine gives the case's text as it is; escaping is the renderer's job.
    text = "".join(s.text for s in hit.snippet.segments)
    assert "<script>alert('zebrafish')</script> & more" in text
    assert [s.text for s in hit.snippet.segments if s.matched] == ["zebrafish"]
    html = snippet_html(hit.snippet)
    assert html is not None
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "<mark>zebrafish</mark>" in html
    # Only <mark> tags remain as markup.
    assert set(re.findall(r"</?([a-z]+)", html)) == {"mark"}


def test_browsing_without_a_query_has_no_snippets_or_scores():
    results = search_cases(limit=5)
    assert all(h.snippet is None and h.score is None for h in results.hits)
    assert results.notes == []


def test_a_passage_becomes_segments_with_its_inline_markdown_as_styles():
    raw = f"said <b> & `{MARK_START}nccl{MARK_END} init` and **{MARK_START}hang{MARK_END} now** *a **b** c*"
    assert parse_snippet(raw) == Snippet(
        (
            SnippetSegment("said <b> & "),
            SnippetSegment("nccl", matched=True, styles=("code",)),
            SnippetSegment(" init", styles=("code",)),
            SnippetSegment(" and "),
            SnippetSegment("hang", matched=True, styles=("strong",)),
            SnippetSegment(" now", styles=("strong",)),
            SnippetSegment(" "),
            SnippetSegment("a ", styles=("em",)),
            SnippetSegment("b", styles=("em", "strong")),
            SnippetSegment(" c", styles=("em",)),
        )
    )
    assert snippet_html(parse_snippet(raw)) == (
        "said &lt;b&gt; &amp; <code><mark>nccl</mark> init</code> and"
        " <strong><mark>hang</mark> now</strong> <em>a <strong>b</strong> c</em>"
    )


def test_a_cut_off_code_span_or_emphasis_is_dropped_not_shown():
    assert parse_snippet("in code` then open and ** here") == Snippet(
        (SnippetSegment("in code then open and  here"),)
    )


def test_a_match_across_a_code_span_edge_renders_as_well_formed_html():
    snippet = parse_snippet(f"{MARK_START}run `torchrun{MARK_END} --nproc` now")
    assert snippet_html(snippet) == "<mark>run </mark><code><mark>torchrun</mark> --nproc</code> now"


def test_style_placeholders_in_a_passage_are_never_taken_for_markup():
    # Control characters are stripped from indexed text; a passage holding one anyway
    # shows it as a space, never as the start of a style.
    assert snippet_html(parse_snippet("a\x01b\x02c")) == "a b c"
    assert parse_snippet("") is None and parse_snippet(None) is None
