"""Dot products of a few sparse rows with many stored ones, in numpy alone.

An increment scores a block of changed cases (ten, say) against a candidate corpus of a few
thousand (`similarity._candidate_corpus`, `pair_scores.PairScores`), and a duplicate check
a few new texts against theirs (`similarity.TextIndex`). scipy.sparse did each product in a
few milliseconds, but importing it was 0.2 of the 1.3 CPU s of importing 10 cases: scipy
1.17 reads every attribute of numpy on import, which imports numpy.f2py, numpy.testing,
numpy.random and more. Here the stored entries whose column a block row holds are gathered,
weighed by the block's values and added up per stored row: one pass over the stored
columns, then work in proportion to the entries hit times the block's rows.

Past `CELLS` such cells (a full rebuild's blocks of hundreds of rows against every case)
`products` answers None and the caller multiplies with scipy, whose kernels do it in one
pass. The sums are added in another order than scipy's: they differ in the last bits,
far less than the margin (`pair_scores.MARGIN`) within which candidates are scored again
one pair at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# Cells (block rows x stored entries hit) computed at once: 4 million float64 are 32 MB.
CELLS = 4_000_000


@dataclass(frozen=True)
class SparseRows:
    """Rows in compressed form (CSR): row i's entries are `columns[starts[i]:starts[i + 1]]`
    with `values` at the same places; columns below `width`, each at most once a row."""

    starts: np.ndarray
    columns: np.ndarray
    values: np.ndarray
    width: int

    def __len__(self) -> int:
        return len(self.starts) - 1

    def take(self, rows: Sequence[int] | np.ndarray) -> SparseRows:
        """These rows, in this order."""
        rows = np.asarray(rows, dtype=np.int64)
        firsts = self.starts[rows]
        lengths = self.starts[rows + 1] - firsts
        starts = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        at = np.repeat(firsts - starts[:-1], lengths) + np.arange(starts[-1], dtype=np.int64)
        return SparseRows(starts, self.columns[at], self.values[at], self.width)

    def astype(self, dtype: type) -> SparseRows:
        """The same rows with values of `dtype`."""
        return SparseRows(self.starts, self.columns, self.values.astype(dtype), self.width)


def from_mappings(
    vectors: Sequence[Mapping[str, float]], column_of: Mapping[str, int], width: int
) -> SparseRows:
    """Word vectors (word -> weight) as rows whose columns are `column_of`'s; words not in
    it are dropped (as `pair_scores.sparse_rows` drops them)."""
    columns: list[int] = []
    values: list[float] = []
    sizes = []
    for vector in vectors:
        known = [(column_of[word], value) for word, value in vector.items() if word in column_of]
        columns.extend(column for column, _ in known)
        values.extend(value for _, value in known)
        sizes.append(len(known))
    starts = np.zeros(len(vectors) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    return SparseRows(starts, np.array(columns, dtype=np.int64), np.array(values, dtype=np.float64), width)


def products(stored: SparseRows, block: SparseRows) -> np.ndarray | None:
    """The dot product of each `block` row with each `stored` row: a len(block) x
    len(stored) array in the values' type (0 where they share no column), or None when
    that takes more than `CELLS` cells (then a scipy product is cheaper)."""
    used, slot_in_block = np.unique(block.columns, return_inverse=True)
    slot = np.full(max(stored.width, 1), -1, dtype=np.int64)
    slot[used] = np.arange(len(used))
    stored_slot = slot[stored.columns]
    hit = np.flatnonzero(stored_slot >= 0)
    if len(block) * len(hit) > CELLS:
        return None
    dtype = np.result_type(stored.values, block.values)
    weights = np.zeros((len(block), len(used)), dtype=dtype)
    weights[np.repeat(np.arange(len(block)), np.diff(block.starts)), slot_in_block] = block.values
    found = np.zeros((len(block), len(stored)), dtype=dtype)
    if len(hit):
        cells = weights[:, stored_slot[hit]]
        cells *= stored.values[hit]
        owners = np.searchsorted(stored.starts, hit, side="right") - 1
        firsts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        found[:, owners[firsts]] = np.add.reduceat(cells, firsts, axis=1)
    return found
