"""A compact sketch of the passage vectors: each row's coordinates along the store's main
directions, as int8, for the first stage of a search's semantic ranking in a large store
(`semantic.Vectors.search_scores`).

A passage vector x (384 float dimensions, unit length) is mostly spanned by a few directions:
centred on the store's mean m, the first 96 principal directions of the fixture library's
passages carry 84% of their variance (of 5,400 sentences of its cases, 76%). Projected on
those directions, `B (x - m)`, a row keeps what tells it apart from others, and `(B q) . (B (x
- m))` approximates `q . x - q . m`, the same ranking as `q . x` (q . m is the same for every
row). Stored as int8 with a step per direction (`Projection.step`), a row is 96 bytes, a
quarter of its int8 row, and scoring every row costs about a quarter of the exact product: at
100,000 cases (500,000 passages) 48 MB and about 9 ms on the 2-core machine of 6 December,
where the exact int8 product over every passage took 55 to 63 ms.

The directions are fitted on the store itself (`Projection.fitted`, on up to `SAMPLE` of its
rows taken at even intervals), so rows read whole always give the same sketch; rows added
later (a write) are projected on the directions of the store they join, which are not
fitted again. So two workers at the same store generation, one that followed the writes and
one that read the store whole (restarted, or more than a quarter changed), may hold
different directions, and in a store past `semantic.SEARCH_DEPTH` cases choose a slightly
different set of cases to score exactly: the scores of the cases both score are the same,
what may differ is which far semantic candidates (weak partial matches at most) are scored.
Measured on 100,000 synthetic cases, the first stage keeps 99.7% of the exact top 100.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .large_arrays import FileRows

DIMENSIONS = 96  # directions kept
SAMPLE = 10_000  # rows the directions are fitted on, at most
# Rows turned to float64 (fitting) or float32 (sketching) at a time: small blocks, since a
# worker's heap keeps what large temporaries took (glibc raises its mmap threshold after a
# large free): fitting on 20,000 rows at once left a worker at 100,000 cases 100 MB larger.
BLOCK_ROWS = 2048
INT8_PEAK = 127
# Rows converted to float32 and scored at a time (1.5 MB at 96 directions): narrow rows in
# blocks of 512 cost a third more in calls (500,000 rows: 11.4 against 8.8 ms).
PRODUCT_ROWS = 4096


class Sample(Protocol):
    """Rows read a slice at a time (`Projection.fitted`): an array, or rows read on demand."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def __len__(self) -> int: ...

    def __getitem__(self, rows: slice) -> np.ndarray: ...


@dataclass(frozen=True)
class Projection:
    """`rows(x)` is the int8 sketch of rows x: `round(basis @ (x - mean) / step)`, clipped to
    +-127 (basis: k x d float32, orthonormal rows; step: k float32, one per direction)."""

    mean: np.ndarray
    basis: np.ndarray
    step: np.ndarray

    @classmethod
    def fitted(cls, sample: Sample | np.ndarray, dimensions: int = DIMENSIONS) -> Projection:
        """The projection on the `dimensions` main directions of `sample` (n x d float rows,
        n >= 1, read `BLOCK_ROWS` at a time): the eigenvectors of their covariance with the
        largest eigenvalues (fewer when d is smaller), each direction's step its largest
        coordinate in the sample / 127 (1 when all are 0). Deterministic for the same sample."""
        width = sample.shape[1]
        blocks = range(0, len(sample), BLOCK_ROWS)
        mean = sum(
            (sample[i : i + BLOCK_ROWS].sum(axis=0, dtype=np.float64) for i in blocks), np.zeros(width)
        )
        mean /= len(sample)
        scatter = np.zeros((width, width))
        for i in blocks:
            centred = _centred(sample[i : i + BLOCK_ROWS], mean)
            scatter += centred.T @ centred
        values, vectors = np.linalg.eigh(scatter)
        kept = np.argsort(values, kind="stable")[::-1][: min(dimensions, width)]
        # eigh's sign of each vector is arbitrary: fixed so its largest component is positive.
        basis = vectors[:, kept].T
        signs = np.sign(basis[np.arange(len(basis)), np.abs(basis).argmax(axis=1)])
        basis = basis * signs[:, None]
        peaks = np.zeros(len(basis))
        for i in blocks:
            coordinates = _centred(sample[i : i + BLOCK_ROWS], mean) @ basis.T
            peaks = np.maximum(peaks, np.abs(coordinates).max(axis=0))
        step = np.where(peaks > 0, peaks / INT8_PEAK, 1.0).astype(np.float32)
        return cls(mean.astype(np.float32), basis.astype(np.float32), step)

    def rows(self, block: np.ndarray) -> np.ndarray:
        """The sketch of `block` (n x d, any numeric dtype, as float32): n x k int8."""
        coordinates = (np.asarray(block, dtype=np.float32) - self.mean) @ self.basis.T
        coordinates /= self.step
        np.clip(np.rint(coordinates, out=coordinates), -INT8_PEAK, INT8_PEAK, out=coordinates)
        return coordinates.astype(np.int8)

    def weights(self, query: np.ndarray) -> np.ndarray:
        """What a sketch row is multiplied by to approximate `query . x - query . mean`: k
        float32."""
        return (self.basis @ np.asarray(query, dtype=np.float32)) * self.step


def _centred(block: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """`block.astype(float64) - mean`, subtracted in place: one float64 copy of the block
    (6 MB at `BLOCK_ROWS` rows of 384), not two."""
    centred = block.astype(np.float64)
    centred -= mean
    return centred


def similarities(rows: np.ndarray | FileRows, weights: np.ndarray) -> np.ndarray:
    """`rows @ weights` (sketch rows n x k int8, in memory or read from their file
    `PRODUCT_ROWS` at a time; `Projection.weights`): n float32, each row's approximate
    similarity (up to the same constant for every row)."""
    out = np.empty(len(rows), dtype=np.float32)
    buffer = np.empty((min(PRODUCT_ROWS, len(rows)), rows.shape[1]), dtype=np.float32)
    for start in range(0, len(rows), PRODUCT_ROWS):
        block = rows[start : start + PRODUCT_ROWS]
        converted = buffer[: len(block)]
        converted[...] = block  # int8 to float32 is exact
        np.dot(converted, weights, out=out[start : start + len(block)])
    return out
