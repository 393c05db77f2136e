"""Similar-case pair scores of a block of cases against every case, as matrix products.

`similarity._Corpus.compare` scores one pair in Python (about 12 µs); scoring every pair
of N cases that way is N²/2 calls: 10 minutes at 10,000 cases, 16 hours at 100,000. Here
the same three parts are computed for a block of B cases against all N at once:

- vocabulary: shared term weight = (terms of the block, weighted) · (terms of all)ᵀ, dense
  (the vocabulary has a few hundred terms), then the weighted Jaccard;
- text: the cosine of TF-IDF vectors = (all vectors, sparse CSR) · (block vectors)ᵀ, in numpy
  for a block of a few cases (`row_products.py`), else with scipy.sparse;
- semantic: the cosine of the mean passage embeddings, one float32 matrix product, less
  half of each case's hubness plus the centre (`hubness.py`), clipped to 0..1.

The products are only used to find candidates: for each case, the pairs whose matrix score
is within `MARGIN` of its `NEIGHBOURS`-th best are scored again by `compare` (so stored
scores and their order are exactly what the one-pair path gives, rounding included).
The products run in float32: the sparse text product, most of the cost, took a third of
the time of float64 (3,168 cases: 0.16 s against 0.50 s), and the candidates are scored
again in float64 anyway.
Memory: a few B x N float matrices and one B x W (W distinct words); B is chosen so that
each stays near 32 MB.
Cost: still every pair, but in BLAS and sparse kernels, about a thousand times cheaper.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from . import row_products
from .row_products import SparseRows

# scipy.sparse is imported where a matrix is built, not here: this module comes with the
# search modules into every server worker, which reads stored similar-case lists and builds
# no matrix, and scipy 1.17 reads every attribute of numpy on import (numpy.f2py,
# numpy.testing and the rest): about 10 MB of each worker's memory and 0.3 s of its start.
# A block of a few rows (an increment, a list computed on the fly) is multiplied in numpy
# (`row_products.py`), so that only a full rebuild imports it.
if TYPE_CHECKING:
    from scipy import sparse

    from .similarity import Profile, _Corpus

# Float error between the float32 matrix products and `compare`: each part is a dot product
# of unit vectors (at most 200 words, 384 dimensions), whose float32 error stays below
# 384 * 6e-8 = 2.3e-5 even when every rounding goes the same way. A wider margin only
# rescores a few more pairs.
MARGIN = 1e-4
CELLS_PER_BLOCK = 4_000_000


class PairScores:
    """The matrices of one corpus, built once (O(N) memory), then `rows(...)` per block."""

    def __init__(self, corpus: _Corpus, ordered: Sequence[Profile]):
        from .similarity import SEMANTIC_WEIGHT, TEXT_WEIGHT, VOCABULARY_WEIGHT

        self.weights = (VOCABULARY_WEIGHT, TEXT_WEIGHT, SEMANTIC_WEIGHT)
        self.ids = [p.id for p in ordered]
        self.index = {pid: i for i, pid in enumerate(self.ids)}
        n = len(ordered)
        # Every (case, term) entry in flat arrays, each term numbered where it first occurs
        # (a Python loop appending each entry was a tenth of an increment at 20,000 cases).
        keys = [key for p in ordered for key in p.terms]
        term_index = {key: i for i, key in enumerate(dict.fromkeys(keys))}
        t_rows = np.repeat(np.arange(n), [len(p.terms) for p in ordered])
        t_cols = np.fromiter(map(term_index.__getitem__, keys), dtype=np.int64, count=len(keys))
        t_vals = np.array([corpus.term_weight.get(key, 0.0) for key in term_index], dtype=np.float64)[t_cols]
        self.embeddings = np.zeros((n, 0), dtype=np.float32)
        dims = next((p.embedding.shape[0] for p in ordered if p.embedding is not None), 0)
        if dims:
            self.embeddings = np.zeros((n, dims), dtype=np.float32)
            stored = [(i, p.embedding) for i, p in enumerate(ordered) if p.embedding is not None]
            if stored:
                self.embeddings[[i for i, _ in stored]] = np.stack([vector for _, vector in stored])
        # Half of each case's hubness, a case without one counted at the centre, and which
        # cases have an embedding (a pair lacking one has no semantic part at all).
        hub = [corpus.centre if p.hubness is None else p.hubness for p in ordered]
        self.half_hub = np.array(hub, dtype=np.float32) / 2
        self.centre = np.float32(corpus.centre)
        self.embedded = np.array([p.embedding is not None for p in ordered], dtype=bool)
        shape_t = (n, max(len(term_index), 1))
        # Weighted terms, dense: the vocabulary is small (hundreds of terms). A case holds a
        # term once (`Profile.terms` is a dict), so each cell is set once.
        self.term_weights = np.zeros(shape_t, dtype=np.float32)
        self.term_weights[t_rows, t_cols] = t_vals
        self.term_present = np.zeros(shape_t, dtype=np.float32)
        self.term_present[t_rows, t_cols] = 1.0
        self.term_total = np.array([p.term_total for p in ordered], dtype=np.float32)
        rows = [corpus.row[p.id] for p in ordered]
        words = corpus.words
        vectors = SparseRows(words.starts, words.columns, words.values, max(len(words.words), 1))
        # Without a copy by row indexing when the corpus's rows are in this order already.
        same_order = rows == list(range(len(rows)))
        self.vectors = (vectors if same_order else vectors.take(rows)).astype(np.float32)
        self.block = max(8, min(1024, CELLS_PER_BLOCK // max(n, len(corpus.words.words), 1)))

    @functools.cached_property
    def matrix(self) -> sparse.csr_matrix:
        """`vectors` as a scipy CSR matrix, for blocks too large for `row_products` (built on
        first use: an increment never needs it)."""
        from scipy import sparse  # here, not at the top: see the imports

        v = self.vectors
        # A copy of the columns: scipy may sort a row's in place, and `_Corpus.vector` may
        # read the same array in its order (strongest first).
        return sparse.csr_matrix((v.values, v.columns.copy(), v.starts), shape=(len(v), v.width))

    def rows(self, indices: Sequence[int]) -> np.ndarray:
        """Scores (len(indices) x N, float32) of these cases against every case; a case
        against itself is -inf."""
        # One BLAS thread, as in the encoder: an import runs beside the server's workers, and
        # OpenBLAS's spinning threads starve them on a small machine.
        with threadpool_limits(limits=1, user_api="blas"):
            return self._rows(indices)

    def _rows(self, indices: Sequence[int]) -> np.ndarray:
        v_w, t_w, s_w = self.weights
        idx = np.asarray(indices, dtype=np.int64)
        # float32 throughout, in place where it can be: at 100,000 cases each block's few
        # passes over B x N cells cost as much as the products.
        shared = self.term_weights[idx] @ self.term_present.T
        total = self.term_total[idx, None] + self.term_total[None, :] - shared
        scores = np.divide(shared, total, out=np.zeros_like(shared), where=total > 0)
        scores *= v_w
        text = row_products.products(self.vectors, self.vectors.take(idx))
        if text is None:
            # Sparse (N x W) times dense (W x B): one pass over the stored vectors per block.
            text = np.asarray(self.matrix @ self.matrix[idx].toarray().T).T
        np.minimum(text, 1.0, out=text)
        text *= t_w
        scores += text
        if self.embeddings.shape[1]:
            semantic = self.embeddings[idx] @ self.embeddings.T
            semantic -= self.half_hub[idx, None]
            semantic -= self.half_hub[None, :]
            semantic += self.centre
            np.clip(semantic, 0.0, 1.0, out=semantic)
            semantic[~self.embedded[idx]] = 0.0
            semantic[:, ~self.embedded] = 0.0
            semantic *= s_w
            scores += semantic
        scores[np.arange(len(idx)), idx] = -np.inf
        return scores

    def blocks(self) -> list[list[int]]:
        """Row indices in blocks of `self.block`."""
        n = len(self.ids)
        return [list(range(start, min(start + self.block, n))) for start in range(0, n, self.block)]


def sparse_rows(
    vectors: Sequence[dict[str, float]], words: dict[str, int], dtype: type = np.float64
) -> sparse.csr_matrix:
    """Word vectors (word -> weight) as the rows of a CSR matrix whose columns are `words`
    (word -> column); words not in it are dropped."""
    from scipy import sparse  # here, not at the top: see the imports

    rows, cols, values = [], [], []
    for i, vector in enumerate(vectors):
        for word, value in vector.items():
            if word in words:
                rows.append(i)
                cols.append(words[word])
                values.append(value)
    shape = (len(vectors), max(len(words), 1))
    return sparse.csr_matrix((values, (rows, cols)), shape=shape, dtype=dtype)


def candidates(row: np.ndarray, keep: int, min_score: float, slack: float = MARGIN) -> np.ndarray:
    """Indices of a score row that can be among its `keep` best at or above `min_score`:
    those within `slack` of the keep-th best (`MARGIN` when the exact scores are compared
    as they are; more when they are rounded before they are compared)."""
    eligible = np.flatnonzero(row >= min_score - MARGIN)
    if len(eligible) <= keep:
        return eligible
    kth = np.partition(row[eligible], len(eligible) - keep)[len(eligible) - keep]
    return eligible[row[eligible] >= kth - slack]
