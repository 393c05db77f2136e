"""An inverted file over the passages' sketches: the first stage of a search's semantic
ranking in a store of at least `semantic.INVERTED_FROM` cases (`semantic.Vectors.search_scores`).

Scoring every passage's sketch (`sketch.py`) cost 20 CPU ms a search at 100,000 cases
(500,000 passages: 48 MB read from the shared file, converted and multiplied, then each
case's combination and the choice among 100,000 cases). Here the sketch rows are grouped
into lists by their nearest centroid (k-means over the sketch coordinates, about
`LIST_ROWS` passages a list), filed list after list (`InvertedFile.rows`). A query scores
the centroids (a few hundred by 96), reads the rows of its `PROBES` best lists (one read a
list; at 100,000 cases 48 of 500 lists, about a tenth of the passages) and scores them as
the sketch pass did; the caller then scores its best cases exactly from their rows, as
before.

Built from a store's sketch when a search first needs it (`InvertedFile.built`: the
centroids fitted on up to `SAMPLE` rows taken at even intervals, starting from rows at
even intervals, `ITERATIONS` rounds, so the same rows give the same lists), kept with the
store's vectors for its generation. Rows a write adds are put in the list of their nearest
centroid (`InvertedFile.assigned`), the centroids are not fitted again (`semantic.Vectors.
replacing`), as the sketch's directions are not: a worker that read the store whole may
hold other centroids than one that followed the writes, and choose slightly different far
candidates to score exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import large_arrays, sketch
from .large_arrays import FileRows

LIST_ROWS = 1000  # passages per list, on average (the number of lists follows the store)
MAX_LISTS = 4096
PROBES = 48  # lists a query reads, when every case is allowed (a tenth at 100,000 cases)
SAMPLE = 20_000  # rows the centroids are fitted on, at most
ITERATIONS = 8
# Rows assigned to their lists at a time: 2,048 x a few hundred float32 distances (4 MB at
# 500 lists), freed before the next block (a worker's peak memory keeps large temporaries).
BLOCK_ROWS = 2048
# Rows of the list-ordered file gathered in memory at a time while filing it (6 MB at 96
# bytes a row): the store's sketch is read once per such group, in order.
GROUP_ROWS = 65_536


@dataclass(frozen=True)
class InvertedFile:
    """`rows`: the store's sketch rows (n x k int8, `sketch.Projection.rows`) list after
    list, list l being rows `starts[l]` to `starts[l + 1]`; `order[j]`: the store row of
    `rows[j]` (ascending within a list); `lists[i]`: the list of store row i; `centroids`:
    C x k float32, in the projection's coordinates (a sketch row times its steps)."""

    centroids: np.ndarray
    lists: np.ndarray
    starts: np.ndarray
    order: np.ndarray
    rows: np.ndarray | FileRows

    @classmethod
    def built(
        cls, projection: sketch.Projection, rows: np.ndarray | FileRows, folder: Path | None = None
    ) -> InvertedFile:
        """The inverted file of the sketch `rows` (n >= 1), filed in `folder` as
        `large_arrays.Rows` files rows (None: held in memory)."""
        centroids = fitted_centroids(projection, rows)
        lists = np.concatenate(
            [
                assigned(centroids, projection, rows[start : start + BLOCK_ROWS])
                for start in range(0, len(rows), BLOCK_ROWS)
            ]
        )
        return cls.filed(centroids, lists, rows, folder)

    @classmethod
    def filed(
        cls, centroids: np.ndarray, lists: np.ndarray, rows: np.ndarray | FileRows, folder: Path | None
    ) -> InvertedFile:
        """The inverted file of the sketch `rows` with store row i in list `lists[i]`: the
        rows copied list after list, `GROUP_ROWS` of the new order at a time, each group
        from one pass over `rows` in order (a row at a time from a file would be a read
        each)."""
        order = np.argsort(lists, kind="stable").astype(np.int32)
        starts = np.searchsorted(lists[order], np.arange(len(centroids) + 1)).astype(np.int64)
        place = np.empty(len(order), dtype=np.int64)  # each store row's place in the new order
        place[order] = np.arange(len(order))
        width = rows.shape[1]
        with large_arrays.Rows(len(order), width, np.int8, folder) as out:
            for low in range(0, len(order), GROUP_ROWS):
                high = min(low + GROUP_ROWS, len(order))
                group = np.empty((high - low, width), dtype=np.int8)
                for start in range(0, len(order), sketch.PRODUCT_ROWS):
                    at = place[start : start + sketch.PRODUCT_ROWS]
                    mine = np.flatnonzero((at >= low) & (at < high))
                    if len(mine):
                        group[at[mine] - low] = rows[start : start + len(at)][mine]
                out.append(group)
            filed = out.finish()
        return cls(centroids, lists.astype(np.int32, copy=False), starts, order, filed)

    def nearest(
        self, projection: sketch.Projection, query: np.ndarray, probes: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The store rows of the `probes` lists whose centroids score best against the unit
        vector `query`, and each row's sketch similarity (`sketch.similarities`, float32):
        one read per list."""
        weights = projection.weights(query)
        centred = projection.basis @ np.asarray(query, dtype=np.float32)
        affinity = self.centroids @ centred
        probes = min(probes, len(self.centroids))
        chosen = np.sort(np.argpartition(-affinity, probes - 1)[:probes])
        lows, highs = self.starts[chosen], self.starts[chosen + 1]
        sizes = highs - lows
        total = int(sizes.sum())
        at = np.repeat(lows - (np.cumsum(sizes) - sizes), sizes) + np.arange(total, dtype=np.int64)
        block = self.rows.take(at) if isinstance(self.rows, FileRows) else self.rows[at]
        return self.order[at].astype(np.int64), sketch.similarities(block, weights)

    def with_rows(
        self, lists: np.ndarray, rows: np.ndarray | FileRows, folder: Path | None = None
    ) -> InvertedFile:
        """The same centroids over another store's sketch `rows`, row i in list `lists[i]`
        (the lists of rows kept, `assigned` for new ones)."""
        return InvertedFile.filed(self.centroids, lists, rows, folder)


def list_count(rows: int) -> int:
    """Lists for a store of `rows` passages: about `LIST_ROWS` a list, 1 to `MAX_LISTS`."""
    return max(1, min(MAX_LISTS, rows // LIST_ROWS))


def coordinates(projection: sketch.Projection, block: np.ndarray) -> np.ndarray:
    """Sketch rows (int8) as float32 coordinates along the projection's directions."""
    return block.astype(np.float32) * projection.step


def assigned(centroids: np.ndarray, projection: sketch.Projection, block: np.ndarray) -> np.ndarray:
    """The list of each sketch row of `block`: its nearest centroid (Euclidean), int32."""
    if not len(block):
        return np.zeros(0, dtype=np.int32)
    return _nearest(centroids, coordinates(projection, block)).astype(np.int32)


def fitted_centroids(projection: sketch.Projection, rows: np.ndarray | FileRows) -> np.ndarray:
    """`list_count(len(rows))` centroids of the sketch `rows` (k-means, `ITERATIONS` rounds,
    on up to `SAMPLE` rows at even intervals, started from sample rows at even intervals;
    a centroid left without rows keeps its place). Deterministic for the same rows."""
    stride = max(1, math.ceil(len(rows) / SAMPLE))
    at = np.arange(0, len(rows), stride)
    sample = coordinates(projection, rows.take(at) if isinstance(rows, FileRows) else np.asarray(rows)[at])
    count = min(list_count(len(rows)), len(sample))
    centroids = sample[np.linspace(0, len(sample) - 1, count).astype(np.int64)].copy()
    for _round in range(ITERATIONS):
        lists = np.concatenate(
            [
                _nearest(centroids, sample[start : start + BLOCK_ROWS])
                for start in range(0, len(sample), BLOCK_ROWS)
            ]
        )
        order = np.argsort(lists, kind="stable")
        sizes = np.bincount(lists, minlength=count)
        held = np.flatnonzero(sizes)
        firsts = np.searchsorted(lists[order], held)
        sums = np.add.reduceat(sample[order], firsts, axis=0)
        centroids[held] = sums / sizes[held, None]
    return centroids


def _nearest(centroids: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Each float32 point's nearest centroid (Euclidean)."""
    nearness = points @ centroids.T
    nearness -= 0.5 * np.einsum("ij,ij->i", centroids, centroids)
    return nearness.argmax(axis=1)
