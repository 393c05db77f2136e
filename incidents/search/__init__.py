"""The one search module: ranked case search, facet counts, log matching, similar cases.

HTML views, the JSON API and the MCP tools call these functions and nothing else for
search; the results are plain dataclasses with model instances inside.
"""

from .engine import search_cases
from .logmatch import match_log, read_log
from .results import (
    FacetCount,
    FoundCode,
    LogHit,
    LogLine,
    LogReading,
    SearchHit,
    SearchResults,
    SimilarCase,
    Snippet,
    SnippetSegment,
)
from .similarity import similar_cases

__all__ = [
    "FacetCount",
    "FoundCode",
    "LogHit",
    "LogLine",
    "LogReading",
    "SearchHit",
    "SearchResults",
    "SimilarCase",
    "Snippet",
    "SnippetSegment",
    "match_log",
    "read_log",
    "search_cases",
    "similar_cases",
]
