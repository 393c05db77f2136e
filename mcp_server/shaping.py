"""From selector and search results (model instances, dataclasses) to the tools' output models."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from incidents import search
from incidents.models import Case
from incidents.search.results import FacetCount, Snippet
from incidents.selectors.summaries import case_summary_fields

from .links import case_links
from .outputs import CaseSummary, FacetValue, LogLine, MatchedLine

SNIPPET_CHARS = 300
FACET_VALUES = 8

_SPACE = re.compile(r"\s+")


# The fields of the read layer's summary that MCP keeps (its model adds the two links).
SUMMARY_KEYS = tuple(name for name in CaseSummary.model_fields if name not in ("url", "html_url"))


def summary_fields(case: Case) -> dict:
    """The `CaseSummary` fields of a case fetched with `with_summary()` (no queries): the
    read layer's summary cut to `SUMMARY_KEYS`, plus the case's links."""
    shared = case_summary_fields(case)
    return {**{key: shared[key] for key in SUMMARY_KEYS}, **case_links(case.id)}  # type: ignore[literal-required]


def case_summary(case: Case) -> CaseSummary:
    return CaseSummary(**summary_fields(case))


def snippet_text(snippet: Snippet | None) -> str | None:
    """A search snippet as plain text: each run of matched segments in `**`, styles dropped,
    whitespace collapsed; at most `SNIPPET_CHARS` characters."""
    if snippet is None:
        return None
    text = "".join(
        f"**{run}**" if matched else run
        for matched, segments in itertools.groupby(snippet.segments, key=lambda s: s.matched)
        for run in ["".join(s.text for s in segments)]
    )
    text = _SPACE.sub(" ", text).strip()
    if len(text) > SNIPPET_CHARS:
        text = text[: SNIPPET_CHARS - 1].rstrip() + "…"
    return text or None


def facet_values(facets: dict[str, list[FacetCount]]) -> dict[str, list[FacetValue]]:
    """The first `FACET_VALUES` values of each facet (they come most frequent first)."""
    return {
        name: [FacetValue(value=f.value, label=f.label, count=f.count) for f in counts[:FACET_VALUES]]
        for name, counts in facets.items()
    }


def matched_lines(lines: Iterable[search.LogLine]) -> list[MatchedLine]:
    """A hit's matched lines as the tool gives them: each line once with every term it
    matched, strongest first (`LogHit.lines`, the lines the API's `matched_lines` and the
    /match/ page show), its text left to the result's `lines`."""
    return [
        MatchedLine(line_number=line.line_number, terms=list(line.terms), occurrences=line.occurrences)
        for line in lines
    ]


def log_lines(lines: Iterable[search.LogLine], wanted: set[int]) -> list[LogLine]:
    """The text of each wanted line once, by line number (a response names every line once,
    however many cases it matched)."""
    text = {m.line_number: m.line for m in lines if m.line_number in wanted}  # cut by the engine
    return [LogLine(line_number=number, line=text[number]) for number in sorted(text)]
