"""A strong search hit holds words of the query that say which failure, not one incidental word.

The relevance model (`fusion.py`) reads ranks and shares of words: the case first by words,
holding every word of the query, is strong. `training hangs after a node swap` put IL-0497 (an
Arm compare-and-swap bug in NCCL) strong at p 0.93: `Training hang` is a kind of failure
that 41 cases share, `node` is in most cases, and `swap` (in 14 of 173, here inside
`compare-and-swap`, in its title, which bm25 weighs most) made it first by words. Such a
case has the query's words, not its failure: nothing it holds says "we have seen this".

`kinds.py` says so of a query naming only common vocabulary terms; a plain word exempted
the whole query. Here each strong hit's evidence is weighed as log matching weighs a log's
(`logmatch.specific_units`, with its thresholds), per group of the query's words the case
holds: a word (or phrase, or identifier) in at most `THRESHOLDS.common_token` of the published
cases 2 units (it says which failure or system: `Xid 79`, `MFU`), in at most
`THRESHOLDS.generic_term` 1 unit (`swap`, `fp16`), more common none; a vocabulary term of the
group its `kinds.term_units` when more. Two units (`THRESHOLDS.specific`) keep a hit strong,
and so does holding `FOUND_BY_MANY` of the query's groups or more: common words, many of them
together, say which failure (`one machine's ranks hang inside nccl and write no timeout log`),
as `signatures.MOST` keeps a case holding most of a pasted line. Otherwise it is possible.
Labels only, after the order is set: the ranking figures cannot move.

Measured with `eval/run.py --no-test` (SQLite; ranking figures unchanged; the strong labels
of the first 10 hits, first hit strong and relevant / strong and not relevant, strong hits
relevant): tuning 138 / 11 -> 137 / 9, 150 of 180 -> 146 of 172; validation 187 / 1 -> 185 /
1, 204 of 209 -> 200 of 205; second validation 123 / 0 -> 122 / 0, 139 of 148 -> 138 of 147.
Weighing every word alone (no `FOUND_BY_MANY`) took the strong label of 6 wrong first hits
of the tuning queries but of 8 right ones there, and of 11 right ones and no wrong one on
the validation set (the long queries of common words): 130 / 5 and 176 / 1.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from .backends import Backend
from .fusion import POSSIBLE, STRONG, Candidate
from .kinds import term_units
from .log_thresholds import THRESHOLDS
from .query import ParsedQuery

# A strong case holding at least this many of the query's word groups is found by them
# together, whatever each weighs alone (the tuning queries: 3 kept IL-0497 for `training
# hangs after a node swap`, where it holds all three; 5 took 3 more right labels than wrong).
FOUND_BY_MANY = 4


def word_units(cases: int, library_size: int) -> int:
    """How specifically a word (or phrase) in `cases` of the `library_size` published cases
    says which failure: 2, 1 or 0 (see the module docstring)."""
    if cases <= THRESHOLDS.common_token * library_size:
        return 2
    return 1 if cases <= THRESHOLDS.generic_term * library_size else 0


def holding_specific_words(
    candidates: list[Candidate], parsed: ParsedQuery, library_size: int, backend: Backend
) -> list[Candidate]:
    """`candidates` with each strong one holding fewer than `FOUND_BY_MANY` of the query's
    word groups (by its `share`) whose groups weigh fewer than `THRESHOLDS.specific` units
    labelled possible (same order, same scores). One query when a candidate is strong and
    holds fewer groups (`Backend.rare_atom_hits`: the cases of each atom in at most
    `THRESHOLDS.generic_term` of the published cases), none otherwise."""
    strong = [
        c
        for c in candidates
        if c.confidence == STRONG and round(c.share * len(parsed.groups)) < FOUND_BY_MANY
    ]
    if not strong or not parsed.groups or library_size <= 0:
        return candidates
    atoms = list(dict.fromkeys(atom for group in parsed.groups for atom in group))
    index = {atom: i for i, atom in enumerate(atoms)}
    held: dict[str, set[int]] = defaultdict(set)
    cases_of: dict[int, int] = defaultdict(int)
    for case_id, atom in backend.rare_atom_hits(atoms, int(THRESHOLDS.generic_term * library_size)):
        held[case_id].add(atom)
        cases_of[atom] += 1
    widened = len(parsed.group_terms) == len(parsed.groups)
    terms = parsed.group_terms if widened else [()] * len(parsed.groups)
    weak_evidence: set[str] = set()
    for candidate in strong:
        units = 0
        for group, group_terms in zip(parsed.groups, terms, strict=True):
            rare = [index[atom] for atom in group if index[atom] in held[candidate.case_id]]
            words = max((word_units(cases_of[i], library_size) for i in rare), default=0)
            # A term's units count when the case holds the group: it has every group, or one
            # of this group's rarer words (a common form of the term is not read per case).
            holds = candidate.share >= 1.0 or bool(rare)
            named = max((term_units(t, library_size) for t in group_terms), default=0) if holds else 0
            units += max(words, named)
        if units < THRESHOLDS.specific:
            weak_evidence.add(candidate.case_id)
    if not weak_evidence:
        return candidates
    return [
        dataclasses.replace(c, confidence=POSSIBLE) if c.case_id in weak_evidence else c for c in candidates
    ]
