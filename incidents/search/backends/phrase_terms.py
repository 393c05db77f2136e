"""SQLite: the lexical ranking from each phrase's bm25 terms, held in this process per store
generation, instead of FTS5 scoring every match of the query again.

FTS5's `bm25()` of a row is a sum over the phrases of the query's expression, in their
order, of one term per phrase (`idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl /
avgdl))`, 0 for a phrase the row lacks), started from 0.0. Every quantity in a term is the
phrase's own (its rows, `idf` from how many rows hold it) or the row's (its length), never
another phrase's: so a phrase's term in a row is what a query of that phrase alone gives
(`-bm25()` of a single phrase is `0.0 + term`, the term itself), and a row's score is those
terms added in the expression's phrase order, as FTS5 adds them: bit for bit the same
double. At 100,000 cases FTS5 computing bm25 for every match was nearly all of a search
(`timeout` in 99,634 rows: about 100 ms); added here from held terms, a few milliseconds.

A phrase's terms are read once a store generation (`store_cache.local`: any write makes a
new one, and bm25 of every row changes with the index) with one statement for all the
phrases of a query not yet held, and kept up to `HELD_BYTES` a process (12 bytes a row
holding the phrase), the least recently used phrases dropped first. `ranked_from_terms`
then computes what the ranking statement (`SqliteBackend._ranked`) computes, in the same
floating-point operations: the match set, the group columns, the factors, the pruning
bound (`ranking_sql.pruned`) and the kept rows, handed to `boosted_page` as the statement's
kept rows are (`boosted_rows`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from django.db import connection

from incidents import store_cache

from .. import case_columns
from ..query import Atom
from . import ranking_sql
from .base import COORD_POWER, LITERAL_BONUS, RankedRow

# The most bytes of phrase terms a process holds (rowids int32 and terms float64: 12 bytes
# a row holding a phrase; `timeout` in 99,634 of 100,173 rows, 1.2 MB).
HELD_BYTES = 24 * 1024 * 1024
# Phrases read in one statement at most (one SELECT each in a UNION ALL; SQLite allows 500).
READ_AT_ONCE = 100


# A phrase's rows (int32 full-text rowids, ascending) and its term in each (float64).
Held = tuple[np.ndarray, np.ndarray]


class PhraseTerms:
    """One store generation's phrase terms: phrase (its FTS5 string, `"nccl timeout"`) ->
    (rowids int32 ascending, terms float64), least recently used first. Thread-safe."""

    def __init__(self) -> None:
        self._held: OrderedDict[str, Held] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def terms(self, phrases: Sequence[str], table: str, weights: str) -> dict[str, Held]:
        """Each of `phrases` with its rows and terms; the ones not held read in one statement
        (`-bm25(table, weights)` of each phrase alone, every row holding it, every status)."""
        wanted = list(dict.fromkeys(phrases))
        found: dict[str, Held] = {}
        with self._lock:
            for phrase in wanted:
                if phrase in self._held:
                    self._held.move_to_end(phrase)
                    found[phrase] = self._held[phrase]
        missing = [p for p in wanted if p not in found]
        for start in range(0, len(missing), READ_AT_ONCE):
            found.update(_read(missing[start : start + READ_AT_ONCE], table, weights))
        with self._lock:
            for phrase in missing:
                rows, terms = found[phrase]
                if phrase not in self._held:
                    self._held[phrase] = (rows, terms)
                    self._bytes += rows.nbytes + terms.nbytes
            while self._bytes > HELD_BYTES and len(self._held) > 1:
                _, (rows, terms) = self._held.popitem(last=False)
                self._bytes -= rows.nbytes + terms.nbytes
        return found


def _read(phrases: list[str], table: str, weights: str) -> dict[str, Held]:
    select = f"SELECT %s, rowid, -bm25({table}, {weights}) FROM {table} WHERE {table} MATCH %s"
    params: list[int | str] = []
    for number, phrase in enumerate(phrases):
        params += [number, phrase]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join([select] * len(phrases)), params)
        rows = cursor.fetchall()
    numbers = np.fromiter((r[0] for r in rows), dtype=np.int32, count=len(rows))
    rowids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    terms = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    found = {}
    for number, phrase in enumerate(phrases):
        mine = numbers == number
        order = np.argsort(rowids[mine], kind="stable")
        found[phrase] = (rowids[mine][order].astype(np.int32), terms[mine][order])
    return found


def held() -> PhraseTerms | None:
    """This process's phrase terms for the current store generation (empty when it begins),
    or None with the store cache off."""
    if case_columns.held() is None:
        return None
    return store_cache.local("fts-phrase-terms", PhraseTerms)


def ranked_from_terms(
    held_terms: PhraseTerms,
    *,
    table: str,
    weights: str,
    phrase_of: dict[Atom, str],
    groups: list[list[Atom]],
    excluded: list[Atom],
    order: list[Atom],
    coordinate: list[list[Atom]],
    literal: list[list[Atom]],
    allowed_rowids: np.ndarray | None,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
    offset: int,
    limit: int,
) -> list[RankedRow] | None:
    """The page `SqliteBackend._ranked` returns by relevance through `boosted_page`, from
    held phrase terms; None when that statement would not end in `boosted_page` (no pruning
    bound: a negative weight) or `boosted_page` cannot answer (the caller runs the
    statement).

    The rows are those holding an atom of every one of `groups` and none of `excluded`
    (among `allowed_rowids` when given: a filter, every status then counted as the
    statement's filtered path does); each row's base score the sum of its phrases' terms in
    `order` (the phrase order of the statement's expression); a group's column 1 when the
    row holds one of its atoms; the factors, shares and bound as `Backend._factors` and
    `ranking_sql.pruned` write them in SQL, the same operations on the same doubles."""
    columns = case_columns.held()
    if columns is None:
        return None
    low, high = ranking_sql.boost_range(term_weights, root_cause_weights)
    depth = offset + limit
    if low <= 0 or depth < 1:
        return None
    atoms = list(
        dict.fromkeys([*order, *(a for g in [*groups, *coordinate, *literal] for a in g), *excluded])
    )
    found = held_terms.terms([phrase_of[a] for a in atoms], table, weights)
    size = max((int(found[phrase_of[a]][0][-1]) + 1 for a in atoms if len(found[phrase_of[a]][0])), default=0)

    def holding(atom: Atom) -> np.ndarray:
        mask = np.zeros(size, dtype=bool)
        mask[found[phrase_of[atom]][0]] = True
        return mask

    holds = {atom: holding(atom) for atom in atoms}

    def any_of(group: list[Atom]) -> np.ndarray:
        mask = np.zeros(size, dtype=bool)
        for atom in group:
            mask |= holds[atom]
        return mask

    matched = np.ones(size, dtype=bool)
    for group in groups:
        matched &= any_of(group)
    for atom in excluded:
        matched &= ~holds[atom]
    if allowed_rowids is not None:
        allowed = np.zeros(size, dtype=bool)
        allowed[allowed_rowids[allowed_rowids < size]] = True
        matched &= allowed
    rows = np.flatnonzero(matched)
    # `0.0 + term + term ...` in the expression's phrase order (a phrase a row lacks adds 0).
    total = np.zeros(size)
    for atom in order:
        phrase_rows, terms = found[phrase_of[atom]]
        total[phrase_rows] += terms
    base = total[rows]

    def shares(groups_of: list[list[Atom]]) -> np.ndarray:
        # `((f.h0 + f.h1) / 2.0)`: an integer sum, divided as a double.
        count = np.zeros(len(rows), dtype=np.int64)
        for group in groups_of:
            count += any_of(group)[rows]
        return count / float(len(groups_of))

    # `Backend._factors`: "1.0", coord ** COORD_POWER as a product, times (1 + bonus * literal).
    factor: np.ndarray | None = None
    if len(coordinate) > 1 and COORD_POWER:
        coord = shares(coordinate)
        factor = coord
        for _ in range(COORD_POWER - 1):
            factor = factor * coord
    if literal:
        factor = (factor if factor is not None else 1.0) * (1 + LITERAL_BONUS * shares(literal))
    scored = base * factor if factor is not None else base
    share = shares(coordinate) if len(coordinate) > 1 else np.ones(len(rows))
    literal_share = shares(literal) if literal else share
    # `ranking_sql.pruned`: the (depth + U)-th greatest score, U the cases not published
    # when every status is in the rows (unfiltered).
    unpublished = 0 if allowed_rowids is not None else int(len(columns.published) - columns.published.sum())
    nth = depth - 1 + unpublished
    at = len(scored) - 1 - nth
    kth = float(np.partition(scored, at)[at]) if at >= 0 else 0.0
    kept = np.flatnonzero(scored * high >= (low * (1 - ranking_sql.BOUND_SLACK)) * kth)
    from .boosted_page import boosted_rows  # numpy-only module, imported with the ranking

    return boosted_rows(
        rows[kept].astype(np.int64),
        scored[kept],
        share[kept],
        literal_share[kept],
        columns,
        term_weights=term_weights,
        root_cause_weights=root_cause_weights,
        published_only=allowed_rowids is None,
        sort="relevance",
        offset=offset,
        limit=limit,
    )
