"""The one search module: ranked case search, facet counts, log matching, similar cases.

HTML views, the JSON API and the MCP tools call these functions and nothing else for
search; the results are plain dataclasses with model instances inside.

The names below are looked up when first used (`__getattr__`), not when the package is
imported: Django imports `incidents.search.models` with the app's models, and importing
the search modules with them brought numpy, scipy and jsonschema into every `manage.py`
command (about half a second), searching or not. Callers that run at app load (URL
modules, views, admin) import the package (`from incidents import search`) and read
`search.search_cases` when they run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # For type checkers, which do not run `__getattr__` (`name as name`: re-exported).
    from .engine import search_cases as search_cases
    from .logmatch import match_log as match_log
    from .logmatch import read_log as read_log
    from .results import FacetCount as FacetCount
    from .results import FoundCode as FoundCode
    from .results import LogHit as LogHit
    from .results import LogLine as LogLine
    from .results import LogReading as LogReading
    from .results import SearchHit as SearchHit
    from .results import SearchResults as SearchResults
    from .results import SimilarCase as SimilarCase
    from .results import Snippet as Snippet
    from .results import SnippetSegment as SnippetSegment
    from .similarity import similar_cases as similar_cases

# Each public name and the submodule that defines it.
_HOMES = {
    "search_cases": "engine",
    "match_log": "logmatch",
    "read_log": "logmatch",
    "similar_cases": "similarity",
    **{
        name: "results"
        for name in (
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
        )
    },
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        # Not a public name: `from incidents.search import profiles` goes on to import the
        # submodule, as it does for any package.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # looked up once
    return value
