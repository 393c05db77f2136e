"""TF-IDF word vectors of many word counts at once, as arrays (for `similarity._Corpus`).

Each text's vector: weight `(1 + log count) * log(N / df)` for every word on fewer than all
N texts (and, with `shared`, on more than one), its `kept` strongest words (ties by word),
divided by their Euclidean norm.

Computed in numpy over one array of every (text, word, count) entry instead of a dict per
text: at 20,000 synthetic cases the dicts cost about a third of an increment (building
them twice, for the duplicate check and the neighbour update, then turning them into
sparse matrices twice more). The values are bit for bit those of the per-text formula
(tests/search/test_word_vectors.py): the logarithms come from `math.log` (one call per
distinct count and document frequency), and each norm adds the squares in the per-text
order (strongest first), one column of a block at a time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

# Rows per block when adding up the norms: bounds the dense block (rows x kept float64).
NORM_ROWS = 4096


@dataclass
class WordVectors:
    """The vectors of texts 0..N-1: text i's words are `columns[starts[i]:starts[i + 1]]`
    (indexes into `words`), strongest first, with their normalised weights in `values`."""

    words: list[str]  # column -> word (the words on fewer than all texts)
    idf: np.ndarray  # column -> log(N / df)
    starts: np.ndarray  # N + 1 offsets into `columns` and `values`
    columns: np.ndarray
    values: np.ndarray
    _column_of: dict[str, int] | None = field(default=None, repr=False)

    @property
    def column_of(self) -> dict[str, int]:
        """word -> column."""
        if self._column_of is None:
            self._column_of = {w: i for i, w in enumerate(self.words)}
        return self._column_of

    def vector(self, row: int) -> dict[str, float]:
        """Text `row`'s vector as word -> weight, strongest first (ties by word)."""
        lo, hi = self.starts[row], self.starts[row + 1]
        words = self.words
        chosen = [words[c] for c in self.columns[lo:hi].tolist()]
        return dict(zip(chosen, self.values[lo:hi].tolist(), strict=True))

    def matrix(self, rows: Sequence[int] | None = None, dtype: type = np.float64) -> sparse.csr_matrix:
        """The vectors of `rows` (all, in order, by default) as a CSR matrix, columns `words`."""
        from scipy import sparse  # here, not at the top: see `pair_scores`' imports

        # Copies: scipy may sort a row's columns in place, and `vector` reads them in order.
        whole = sparse.csr_matrix(
            (self.values.astype(dtype), self.columns.copy(), self.starts.copy()),
            shape=(len(self.starts) - 1, max(len(self.words), 1)),
        )
        return whole if rows is None else whole[np.asarray(rows, dtype=np.int64)]


def word_vectors(
    texts: Sequence[Sequence[Mapping[str, int]]],
    kept: int,
    frequencies: Mapping[str, int] | None = None,
    total: int | None = None,
    *,
    shared: bool = False,
) -> WordVectors:
    """The vectors of `texts`, each given as one or more word-count mappings whose counts
    add up (a case's account and the rest of it). `frequencies` and `total`: the document
    frequencies and N of a larger collection `texts` belong to (`word_statistics.py`), in
    place of those of `texts` alone (a word's count there is never taken below its count in
    `texts`). `shared`: only words on at least two texts of the collection, for vectors
    compared with each other alone (similar cases): a word on one text is in no other
    vector, so it adds nothing to any cosine, yet as the rarest it would weigh most in its
    text's norm and take one of its `kept` places. (A text from outside, as a duplicate
    check probes, can share exactly such a word: those vectors keep them.)"""
    n = len(texts)
    # Flat lists filled by C-level extends, then every word mapped to its column at once. A
    # word in both parts of a text counts once, with both counts (`_added`).
    words: list[str] = []
    counts: list[int] = []
    sizes: list[int] = []
    for parts in texts:
        counted = _added(parts)
        words.extend(counted)
        counts.extend(counted.values())
        sizes.append(len(counted))
    every = list(dict.fromkeys(words))
    column_of = dict(zip(every, range(len(every)), strict=True))
    ids = np.fromiter(map(column_of.__getitem__, words), dtype=np.int64, count=len(words))
    counts_of = np.asarray(counts, dtype=np.float64)
    df = np.bincount(ids, minlength=len(every))
    texts_count = max(n, 1)
    if frequencies is not None:
        stored = np.fromiter((frequencies.get(w, 0) for w in every), dtype=np.int64, count=len(every))
        df = np.maximum(df, stored)
        texts_count = max(total or 0, int(df.max(initial=0)), texts_count)
    # Columns renumbered in word order, keeping only words on fewer than all texts (a word
    # on every text tells none apart) and, with `shared`, on more than one: a column's number
    # then breaks ties as the word does.
    fewest = 2 if shared else 1
    kept_old = [c for c in sorted(range(len(every)), key=every.__getitem__) if fewest <= df[c] < texts_count]
    new_column = np.full(max(len(every), 1), -1, dtype=np.int64)
    new_column[kept_old] = np.arange(len(kept_old))
    idf = _logs(texts_count / df[kept_old]) if kept_old else np.zeros(0)

    rows = np.repeat(np.arange(n, dtype=np.int64), sizes)
    columns = new_column[ids]
    keep = columns >= 0
    rows, columns = rows[keep], columns[keep]
    counts_kept = counts_of[keep]
    weights = (1 + _count_logs(counts_kept)) * idf[columns]
    # Strongest first within each text, ties by word; then each text's first `kept`.
    rows, columns, weights = _strongest_first(rows, columns, counts_kept, weights, len(kept_old))
    firsts = np.searchsorted(rows, np.arange(n))
    rank = np.arange(len(rows)) - firsts[rows]
    top = rank < kept
    rows, columns, weights, rank = rows[top], columns[top], weights[top], rank[top]
    norms = _norms(rows, rank, weights, n, kept)
    starts = np.searchsorted(rows, np.arange(n + 1)).astype(np.int64)
    return WordVectors(
        words=[every[c] for c in kept_old],
        idf=idf,
        starts=starts,
        columns=columns.astype(np.int32),
        values=weights / norms[rows],
    )


def _added(parts: Sequence[Mapping[str, int]]) -> Mapping[str, int]:
    """One text's word counts from its parts, a word in several parts with their counts
    added, in the order the words first occur: a merge in C, then the few words in both
    parts (about 40 of a case's 200) added apart. scipy.sparse summed the duplicate (text,
    word) entries instead, and an increment imported it for that alone."""
    total = parts[0]
    for part in parts[1:]:
        both = total.keys() & part.keys()
        merged = {**total, **part}
        for word in both:
            merged[word] = total[word] + part[word]
        total = merged
    return total


# Counts and (count, column) pairs ranked through tables up to this many cells; past it,
# through np.unique (a sort of every entry).
PAIR_TABLE = 1 << 24


def _strongest_first(
    rows: np.ndarray, columns: np.ndarray, counts: np.ndarray, weights: np.ndarray, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`rows`, `columns` and `weights` ordered by row, then weight (strongest first), then
    column: the order of `np.lexsort((columns, -weights, rows))`, by one sort of integers.
    An entry's weight follows from its count and column alone, so the distinct (count,
    column) pairs, far fewer than the entries, are ranked by (-weight, column) and each
    entry sorts as (row, rank of its pair). Lexsort's three keys over the 7.5 million
    entries of 100,000 synthetic cases took 3.5 s. `width`: the number of columns."""
    if not len(rows):
        return rows, columns, weights
    # Pairs numbered by the rank of their count among the counts there are, not the count
    # itself: one word said hundreds of times would otherwise outgrow the table.
    level, count_values = _distinct(counts.astype(np.int64))
    entry_pair, distinct = _distinct(level * width + columns, len(count_values) * width)
    pair_weights = np.empty(len(distinct), dtype=np.float64)
    pair_weights[entry_pair] = weights  # the same weight wherever a pair occurs
    pair_columns = distinct % width
    ranked = np.lexsort((pair_columns, -pair_weights))
    rank_of = np.empty(len(distinct), dtype=np.int64)
    rank_of[ranked] = np.arange(len(distinct))
    keys = np.sort(rows * len(distinct) + rank_of[entry_pair])
    by_rank = ranked[keys % len(distinct)]
    return keys // len(distinct), pair_columns[by_rank], pair_weights[by_rank]


def _distinct(values: np.ndarray, size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each value's index among the distinct `values` (non-negative integers, below `size`
    when given, else found), and those distinct values in increasing order: through a
    table of `size` cells up to `PAIR_TABLE`, else np.unique."""
    size = int(values.max()) + 1 if size is None else size
    if size > PAIR_TABLE:
        # Indexed, not unpacked: mypy 1.19 crashes unpacking this overload's tuple here.
        found = np.unique(values, return_inverse=True)
        return found[1].reshape(-1), found[0]
    seen = np.zeros(size, dtype=bool)
    seen[values] = True
    distinct = np.flatnonzero(seen)
    position = np.zeros(size, dtype=np.int64)
    position[distinct] = np.arange(len(distinct))
    return position[values], distinct


def _logs(values: np.ndarray) -> np.ndarray:
    """`math.log` of each value (numpy's own log may differ in the last bit), computed once
    per distinct value: counts and document frequencies take few."""
    distinct, inverse = np.unique(values, return_inverse=True)
    return np.array([math.log(v) for v in distinct.tolist()], dtype=np.float64)[inverse]


# Counts up to this are looked up in a table of logarithms; a larger one takes `_logs`.
COUNT_TABLE = 100_000


def _count_logs(counts: np.ndarray) -> np.ndarray:
    """`_logs` of word counts (whole numbers, at least 1), from a table of `math.log` of
    1..max: the same values without sorting every entry (np.unique over the 5 million
    entries of 20,000 cases was a tenth of building their vectors)."""
    top = int(counts.max()) if len(counts) else 0
    if top > COUNT_TABLE:
        return _logs(counts)
    table = np.array([0.0, *(math.log(k) for k in range(1, top + 1))], dtype=np.float64)
    return table[counts.astype(np.int64)]


def _norms(rows: np.ndarray, rank: np.ndarray, weights: np.ndarray, n: int, kept: int) -> np.ndarray:
    """Each text's norm, its squares added strongest first as a Python loop adds them
    (1.0 for a text without words)."""
    norms = np.ones(n, dtype=np.float64)
    for start in range(0, n, NORM_ROWS):
        stop = min(start + NORM_ROWS, n)
        lo, hi = np.searchsorted(rows, [start, stop])
        squares = np.zeros((stop - start, max(kept, 1)), dtype=np.float64)
        squares[rows[lo:hi] - start, rank[lo:hi]] = weights[lo:hi] * weights[lo:hi]
        total = np.zeros(stop - start, dtype=np.float64)
        for column in range(squares.shape[1]):
            total = total + squares[:, column]  # adding a padding 0.0 changes nothing
        root = np.sqrt(total)
        norms[start:stop] = np.where(total > 0, root, 1.0)
    return norms
