"""A snippet cut from inside one code span to inside another shows the code as code and
the prose between as prose: where the passage starts in the indexed text says whether it
starts inside a span, and a span cut at either end is closed at the cut. The same on both
backends (FTS5 `snippet()`, PostgreSQL `ts_headline` with its fragments)."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.snippets import balance_code_spans, parse_snippet
from incidents.search.text import MARK_END, MARK_START

from .conftest import synthetic_case

pytestmark = pytest.mark.django_db

SOURCE = (
    "Intro line.\n"
    "It died in `c10::CUDAError` (CUDA error: ECC). Then `RuntimeError: CUDA error: out of memory` at init."
)


def styled(raw: str, sources=(SOURCE,), delimiter=None) -> list[tuple[str, bool]]:
    snippet = parse_snippet(balance_code_spans(raw, sources, delimiter=delimiter))
    assert snippet is not None
    return [(s.text, "code" in s.styles) for s in snippet.segments]


def test_a_passage_cut_inside_two_spans_shows_prose_as_prose():
    # What FTS5 gave for IL-0465: an even count of backticks, both of them at a cut span.
    raw = f"…Error` ({MARK_START}CUDA error{MARK_END}: ECC). Then `RuntimeError: CUDA…"
    assert styled(raw) == [
        ("…", False),
        ("Error", True),
        (" (", False),
        ("CUDA error", False),
        (": ECC). Then ", False),
        ("RuntimeError: CUDA", True),
        ("…", False),
    ]


def test_a_cut_just_beside_a_spans_backtick_drops_it():
    assert styled("` (CUDA error: ECC). Then `") == [("(CUDA error: ECC). Then", False)]


def test_whole_spans_and_a_passage_without_cuts_are_unchanged():
    raw = "It died in `c10::CUDAError` (CUDA error: ECC)."
    assert balance_code_spans(raw, [SOURCE]) == raw
    assert balance_code_spans("no code here", [SOURCE]) == "no code here"


def test_each_fragment_of_a_headline_is_placed_on_its_own():
    raw = "died in `c10::CUDA … out of memory` at init."
    assert styled(raw, delimiter=" … ") == [
        ("died in ", False),
        ("c10::CUDA", True),
        (" … ", False),
        ("out of memory", True),
        (" at init.", False),
    ]


def test_a_passage_found_in_no_source_is_left_to_the_guess():
    raw = "…Error` (CUDA error). Then `RuntimeError…"
    assert balance_code_spans(raw, ["some other text"]) == raw


def test_both_backends_show_the_code_of_a_cut_span_as_code(import_synthetic):
    first = " ".join(f"alpha{i}" for i in range(20))
    second = " ".join(f"omega{i}" for i in range(20))
    description = (
        f"The job printed `{first}` and then the zebrafish prose sat between them `{second}` at last."
    )
    import_synthetic(synthetic_case(11, symptoms={"description": description, "tags": ["Training hang"]}))
    [hit] = [h for h in search_cases(query="zebrafish").hits if h.case.id == "IL-900011"]
    assert hit.snippet is not None
    segments = [(s.text, "code" in s.styles) for s in hit.snippet.segments]
    prose = "".join(text for text, code in segments if not code)
    code = "".join(text for text, code in segments if code)
    assert "and then the zebrafish prose sat between them" in prose
    assert "alpha" not in prose and "omega" not in prose
    assert "alpha19" in code and "omega0" in code
