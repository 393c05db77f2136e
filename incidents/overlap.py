"""Copied wording: runs of words a case shares with the source text its writer read.

Cases are written in our own words (facts and figures carry over, sentences do not). A writer
saves the primary text they read as ``<sources>/<CASE-ID>.txt`` (kept out of the repository where
licences require); :func:`shared_runs` finds every run of ``min_words`` or more consecutive words
that a case's prose shares with it. Words are compared lower-cased, with punctuation dropped, so
re-punctuating a copied sentence does not hide it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

WORD = re.compile(r"[\w'’.%/-]+", re.UNICODE)
DEFAULT_MIN_WORDS = 8


@dataclass(frozen=True)
class SharedRun:
    """One run of consecutive words found in both texts; ``words`` is the run itself."""

    words: tuple[str, ...]

    def __str__(self) -> str:
        return " ".join(self.words)


def words_of(text: str) -> list[str]:
    """Lower-cased words of ``text``, trailing sentence punctuation stripped."""
    return [w.strip(".'’/-").lower() for w in WORD.findall(text) if w.strip(".'’/-")]


# Keys whose strings are not the writer's prose: ids, URLs, links to other cases, and the
# sources, whose titles quote the source's own title legitimately.
NOT_PROSE = frozenset({"id", "url", "related", "sources"})


def case_prose(document: Any) -> Iterator[str]:
    """Every string in a case document except URLs, ids, related ids and the `sources` list
    (source titles are quoted as published): the prose a writer wrote."""
    if isinstance(document, str):
        if not document.startswith(("http://", "https://")):
            yield document
    elif isinstance(document, dict):
        for key, value in document.items():
            if key not in NOT_PROSE:
                yield from case_prose(value)
    elif isinstance(document, list):
        for item in document:
            yield from case_prose(item)


def shared_runs(prose: str, source: str, *, min_words: int = DEFAULT_MIN_WORDS) -> list[SharedRun]:
    """Maximal runs of at least ``min_words`` words of ``prose`` that also occur in ``source``.

    Each prose string is checked on its own (a run never spans two fields). Runs are reported
    once, longest first.
    """
    source_words = words_of(source)
    grams = {tuple(source_words[i : i + min_words]) for i in range(len(source_words) - min_words + 1)}
    found: set[tuple[str, ...]] = set()
    words = words_of(prose)
    start = 0
    while start <= len(words) - min_words:
        if tuple(words[start : start + min_words]) not in grams:
            start += 1
            continue
        end = start + min_words
        while end < len(words) and tuple(words[end - min_words + 1 : end + 1]) in grams:
            end += 1
        found.add(tuple(words[start:end]))
        start = end
    return [SharedRun(run) for run in sorted(found, key=len, reverse=True)]


def case_overlaps(document: Any, source: str, *, min_words: int = DEFAULT_MIN_WORDS) -> list[SharedRun]:
    """Shared runs between every prose field of a case document and its saved source text."""
    runs: list[SharedRun] = []
    for prose in case_prose(document):
        runs.extend(shared_runs(prose, source, min_words=min_words))
    return runs
