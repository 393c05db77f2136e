"""A hit whose snippet names the query's failure only to say it did not happen is no strong hit.

`NCCL error 12` listed IL-0472 (all-gather returned corrupted data "without an NCCL error")
as a strong match, `Matches: NCCL error.`: the full-text engines match words, not what a
sentence says of them. Import and log matching already leave a negated or counterfactual
mention of a code out (`incidents.negation`); here the case's indexed body (which `why`
reads anyway, `backends.Marked.body`; the snippet's marks without it) is read the same way:

- a mention that spells a failure the query names (a symptom tag's name or synonym,
  `ParsedQuery.terms`, or an error code the query shows, `SearchPlan.codes`) and is
  `negation.negated` ("without an NCCL error", "no sign of Xid 79") is no match: `why` does
  not name it (`unmarked`, `negated_spellings`);
- a strong hit mentioning such a failure only negated, and no failure of the query plainly,
  is labelled possible (`negated_failure`): its other words may still answer the query, so
  it stays a match, in its place (the ranking is unchanged, as for `signatures.py`), and a
  case tagged with the failure keeps its label (`hydration`).

No query: the body and snippet are read for every hit shown anyway.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from incidents.models import Facet
from incidents.negation import negated

from .query import ParsedQuery
from .results import Snippet
from .text import words


def failure_spellings(parsed: ParsedQuery, codes: Iterable[str] = ()) -> frozenset[tuple[str, ...]]:
    """The spellings (lowercased words) of the failures the query names: every form of its
    symptom-tag terms and the names of `codes` (the error codes it shows)."""
    forms = [form for term in parsed.terms if term.facet == Facet.SYMPTOM for form in term.forms]
    return frozenset(tuple(w.lower() for w in words(text)) for text in [*forms, *codes] if words(text))


def typed_failures(parsed: ParsedQuery, codes: Iterable[str] = ()) -> frozenset[tuple[str, ...]]:
    """Of `failure_spellings`, those the query typed (its literal groups naming a symptom
    tag) and the codes it shows: only these, negated, cost a strong label. A synonym the
    case negates says less ("restart" names Job interruption; IL-0476 compares its run with
    one "without interruption", and lost its label on the validation set when it counted)."""
    typed = [
        atom.words
        for literal, terms in zip(parsed.literal_groups, parsed.group_terms, strict=False)
        if any(term.facet == Facet.SYMPTOM for term in terms)
        for atom in literal
    ]
    shown = [tuple(words(code)) for code in codes]
    return frozenset(tuple(w.lower() for w in spelt) for spelt in [*typed, *shown] if spelt)


# What may stand between two marks of one mention: PostgreSQL marks each word of a phrase
# (`NCCL` and `error`), FTS5 the phrase.
_BETWEEN_MARKS = re.compile(r"[\s\-_./:]*")


def _mentions(
    snippet: Snippet, spellings: frozenset[tuple[str, ...]]
) -> list[tuple[list[int], tuple[str, ...], bool]]:
    """The marked mentions of a failure of `spellings` in `snippet`: each its segments'
    indexes, its spelling (lowercased words) and whether it is negated."""
    text, starts = "", []
    for segment in snippet.segments:
        starts.append(len(text))
        text += segment.text
    runs: list[list[int]] = []
    gap = False
    for index, segment in enumerate(snippet.segments):
        if segment.matched:
            if runs and not gap:
                runs[-1].append(index)
            else:
                runs.append([index])
            gap = False
        elif runs and not gap and _BETWEEN_MARKS.fullmatch(segment.text) and runs[-1][-1] == index - 1:
            continue  # a space between two marks of one phrase, or the end of the run
        else:
            gap = True
    found = []
    for run in runs:  # a run may hold more than the failure (`NCCL error` `12`)
        for first in range(len(run)):
            for last in range(first, len(run)):
                part = run[first : last + 1]
                spelt = tuple(w.lower() for i in part for w in words(snippet.segments[i].text))
                if spelt in spellings:
                    found.append((part, spelt, negated(text, starts[part[0]])))
    return found


def _negated_segments(snippet: Snippet, spellings: frozenset[tuple[str, ...]]) -> tuple[set[int], set[int]]:
    """Indexes of the marked segments spelling a failure of `spellings`: (negated, plain)."""
    no: set[int] = set()
    yes: set[int] = set()
    for run, _, is_negated in _mentions(snippet, spellings):
        (no if is_negated else yes).update(run)
    return no, yes


def unmarked(snippet: Snippet | None, spellings: frozenset[tuple[str, ...]]) -> Snippet | None:
    """`snippet` with its negated mentions of a failure of `spellings` no longer marked (what
    `why` reads); `snippet` itself when it has none."""
    if snippet is None or not spellings:
        return snippet
    no, _ = _negated_segments(snippet, spellings)
    if not no:
        return snippet
    return Snippet(
        tuple(
            dataclasses.replace(segment, matched=False) if index in no else segment
            for index, segment in enumerate(snippet.segments)
        )
    )


def _body_mentions(body: str, spellings: frozenset[tuple[str, ...]]) -> list[tuple[tuple[str, ...], bool]]:
    """Every mention in `body` of a failure of `spellings` (its words in a row, any case, a
    plural `s` allowed), with whether it is negated."""
    found = []
    for spelt in spellings:
        between = r"[\W_]+"
        pattern = r"(?<![^\W_])" + between.join(re.escape(w) + "(?:e?s)?" for w in spelt) + r"(?![^\W_])"
        for match in re.finditer(pattern, body, flags=re.IGNORECASE):
            found.append((spelt, negated(body, match.start())))
    return found


def _all_mentions(
    snippet: Snippet | None, body: str | None, spellings: frozenset[tuple[str, ...]]
) -> list[tuple[tuple[str, ...], bool]]:
    """The mentions of a failure of `spellings` (spelling, negated): in `body` (the case's
    indexed body, `backends.Marked.body`) when given, else those `snippet` marks."""
    if not spellings:
        return []
    if body:
        return _body_mentions(body, spellings)
    if snippet is None:
        return []
    return [(spelt, is_negated) for _, spelt, is_negated in _mentions(snippet, spellings)]


def negated_spellings(
    snippet: Snippet | None, spellings: frozenset[tuple[str, ...]], body: str | None = None
) -> frozenset[tuple[str, ...]]:
    """The failures of `spellings` (lowercased words) the case mentions only negated: at
    least once, and never plainly (in `body` when given, else in `snippet`'s marks)."""
    mentions = _all_mentions(snippet, body, spellings)
    plain = {spelt for spelt, is_negated in mentions if not is_negated}
    return frozenset(spelt for spelt, is_negated in mentions if is_negated) - plain


def negated_failure(
    snippet: Snippet | None,
    spellings: frozenset[tuple[str, ...]],
    body: str | None = None,
    typed: frozenset[tuple[str, ...]] | None = None,
) -> bool:
    """Whether the case mentions a failure of `typed` (`typed_failures`; all `spellings`
    when None) negated, and no failure of `spellings` plainly (in `body` when given, else in
    `snippet`'s marks)."""
    mentions = _all_mentions(snippet, body, spellings)
    wanted = spellings if typed is None else typed
    return any(is_negated and spelt in wanted for spelt, is_negated in mentions) and all(
        is_negated for _, is_negated in mentions
    )


def without_spellings(
    typed: list[list[tuple[str, ...]]], left_out: frozenset[tuple[str, ...]]
) -> list[list[tuple[str, ...]]]:
    """`typed` (each query group's spellings, as words) without the spellings in `left_out`
    (compared lowercased): `why` does not say the case holds a failure it only negates."""
    if not left_out:
        return typed
    return [[spelt for spelt in group if tuple(w.lower() for w in spelt) not in left_out] for group in typed]
