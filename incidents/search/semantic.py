"""Stored passage embeddings of the cases, and semantic ranking over them.

Each case is read as a few passages (`PASSAGES`: title, summary, symptoms, root cause,
remediation); each passage's sentence embedding (`encoder.py`) is stored in
`CaseEmbedding.vectors` as float32 bytes, one row per case, with a digest of the passage
texts and the model name. `update_embeddings` (called at import, inside the import
transaction) re-encodes only cases whose digest changed, so re-importing unchanged cases
costs one query and no model call.

Reading is one query whatever the number of cases (`load_vectors`); a query is scored by
numpy against every passage and a case scores its best passage plus a little of its mean
(`case_scores`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db.models import QuerySet

from incidents import store_cache
from incidents.bulk_sql import insert_rows
from incidents.models import Case

from . import encoder
from .models import CaseEmbedding

PASSAGES = ("title", "summary", "symptoms", "root cause", "remediation")
# A case's semantic score: best passage + MEAN_SHARE * mean of its passages. The best
# passage finds a paraphrase of one part; the mean prefers cases that are about it overall.
MEAN_SHARE = 0.25


def passages(case: Case) -> list[str]:
    """The passage texts of `case`, in `PASSAGES` order (blank ones kept as "")."""
    cause = " ".join(t for t in (case.root_cause_description, case.root_cause_trigger) if t)
    return [
        case.title,
        case.summary,
        case.symptoms_description,
        cause,
        " ".join(case.remediation or []),
    ]


def digest(texts: list[str]) -> str:
    """What decides whether a case must be encoded again: the model and the passage texts."""
    joined = "\x1e".join([encoder.MODEL_NAME, str(encoder.MAX_TOKENS), *map(encoder.prepare, texts)])
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


def update_embeddings(case_ids: Iterable[str]) -> int:
    """Encode and store the passages of `case_ids` whose text changed. Returns cases encoded.

    Queries per `BATCH` cases: the cases, their stored digests, then a delete and an insert
    of the changed ones. Nothing happens when the model package is not installed. Memory:
    one batch's texts and vectors at a time (all of a 10,000-case import at once took
    230 MB).
    """
    ids = sorted(set(case_ids))
    if not ids or not encoder.available():
        return 0
    return sum(_update_batch(ids[start : start + BATCH]) for start in range(0, len(ids), BATCH))


BATCH = 500


def _update_batch(ids: list[str]) -> int:
    stored = dict(CaseEmbedding.objects.filter(case_id__in=ids).values_list("case_id", "digest"))
    todo: list[tuple[str, str, list[str]]] = []
    for case in Case.objects.filter(id__in=ids).only(
        "id",
        "title",
        "summary",
        "symptoms_description",
        "root_cause_description",
        "root_cause_trigger",
        "remediation",
    ):
        texts = passages(case)
        key = digest(texts)
        if stored.get(case.id) != key:
            todo.append((case.id, key, texts))
    if not todo:
        return 0
    vectors = encoder.encode([t for _, _, texts in todo for t in texts])
    rows, at = [], 0
    for case_id, key, texts in todo:
        block = vectors[at : at + len(texts)]
        at += len(texts)
        block = block[np.linalg.norm(block, axis=1) > 0]  # blank passages carry nothing
        rows.append((case_id, encoder.MODEL_NAME, key, len(block), block.astype(np.float32).tobytes()))
    CaseEmbedding.objects.filter(case_id__in=[row[0] for row in rows]).delete()
    return insert_rows(CaseEmbedding, ("case_id", "model", "digest", "passages", "vectors"), rows)


@dataclass
class Vectors:
    """Every published case's passage vectors: `matrix[i]` belongs to `ids[owner[i]]`."""

    ids: list[str]
    owner: np.ndarray
    matrix: np.ndarray

    def case_scores(self, query: np.ndarray) -> dict[str, float]:
        """Case id -> semantic score of the unit vector `query` (cosine-like, about -0.2..1.2)."""
        if not self.ids:
            return {}
        sims = self.matrix @ query
        n = len(self.ids)
        best = np.full(n, -1.0, dtype=np.float32)
        np.maximum.at(best, self.owner, sims)
        total = np.bincount(self.owner, weights=sims, minlength=n)
        count = np.maximum(np.bincount(self.owner, minlength=n), 1)
        score = best + MEAN_SHARE * (total / count)
        return {case_id: float(score[i]) for i, case_id in enumerate(self.ids)}

    def case_matrix(self) -> np.ndarray:
        """One unit vector per case (the normalised mean of its passages), in `ids` order."""
        n = len(self.ids)
        sums = np.zeros((n, encoder.DIMENSIONS), dtype=np.float32)
        np.add.at(sums, self.owner, self.matrix)
        sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        return sums


def load_vectors(cases: QuerySet[Case] | None = None) -> Vectors:
    """The stored vectors of published cases (of the `cases` queryset only, when given):
    one query."""
    rows = CaseEmbedding.objects.filter(case__status=Case.Status.PUBLISHED, model=encoder.MODEL_NAME)
    if cases is not None:
        rows = rows.filter(case_id__in=cases.order_by().values("id"))
    ids: list[str] = []
    owners, blocks = [], []
    values = rows.order_by("case_id").values_list("case_id", "passages", "vectors")
    for case_id, passages_count, data in values:
        block = np.frombuffer(bytes(data), dtype=np.float32).reshape(passages_count, encoder.DIMENSIONS)
        owners.append(np.full(passages_count, len(ids), dtype=np.int64))
        blocks.append(block)
        ids.append(case_id)
    if not ids:
        return Vectors([], np.zeros(0, dtype=np.int64), np.zeros((0, encoder.DIMENSIONS), dtype=np.float32))
    return Vectors(ids, np.concatenate(owners), np.concatenate(blocks))


def process_vectors() -> Vectors:
    """Every published case's vectors, kept in this process per store generation
    (`store_cache.local`: one cache read checks they are current); read each time, one query,
    with the store cache off. What search and log matching score a query against."""
    return store_cache.local("vectors", load_vectors)


def candidate_scores(query: np.ndarray, candidates: list[str]) -> dict[str, float]:
    """`Vectors.case_scores` of `query` for the published cases `candidates` only (to 6
    decimals). With the
    store cache on, every published case's vectors are kept in this process per store
    generation (as search keeps them) and scored, then cut to the candidates: no query.
    Off, the candidates' vectors are read: one query."""
    if settings.STORE_CACHE:
        scores = process_vectors().case_scores(query)
    else:
        scores = load_vectors(Case.objects.filter(id__in=candidates)).case_scores(query)
    # float32 products over matrices of other shapes differ in the 7th digit: rounded, two
    # cases with the same passages tie whichever way their vectors were read.
    return {case_id: round(scores[case_id], 6) for case_id in candidates if case_id in scores}


def query_vector(text: str) -> np.ndarray | None:
    """The unit vector of a query, or None when the model package is not installed."""
    if not encoder.available():
        return None
    return encoder.encode([text])[0]
