"""Stored passage embeddings of the cases, and semantic ranking over them.

Each case is read as a few passages (`PASSAGES`: title, summary, symptoms, root cause,
remediation); each passage's sentence embedding (`encoder.py`) is stored in
`CaseEmbedding.vectors` as float32 bytes, one row per case, with a digest of the passage
texts and the model name. `update_embeddings` (called at import, inside the import
transaction) re-encodes only cases whose digest changed, so re-importing unchanged cases
costs one query and no model call. A first bulk import only drops the vectors of passages
it changed; the step after it encodes the published cases that have none
(`encode_missing`, see `deferred.py`).

Reading is one query whatever the number of cases (`load_vectors`); a case scores its
best passage plus a little of its mean (`case_scores`).

What search reads is held as int8 with one scale per passage (`quantised`): a quarter of the
float32 matrix (at 100,000 cases 192 MB in place of 768 MB), in a file shared by the workers
and read where needed (`large_arrays.FileRows`), and a passage's cosine moves by at most
about 0.002. The stored vectors stay float32: similar cases' mean embeddings are computed
from them as they are (`profiles.py`).

A search scores every case exactly (numpy against every passage) in a store of at most
`SEARCH_DEPTH` cases (the bundled library, the evaluation's). In a larger one it ranks them
in two stages (`Vectors.search_scores`): every passage's sketch (`sketch.py`: its
coordinates along the store's 96 main directions, 96 bytes, held in memory) approximates
each case's score, and the `SEARCH_DEPTH` cases best by that, with the lexical ranking's,
are scored exactly from their rows alone. At 100,000 cases the int8 product over every
passage cost 55 to 63 ms a search and kept the whole 192 MB resident in every worker. From
`INVERTED_FROM` cases the first stage reads only the sketches of the passages in a few lists
of an inverted file (`inverted.py`: the passages grouped by their nearest k-means centroid)
and scores exactly the `INVERTED_DEPTH` cases best there: the sketch of every passage cost
20 ms of a search's 35 ms semantic stage at 100,000 cases.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import hashlib
import math
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Count, QuerySet, Subquery, Value

from incidents import store_cache
from incidents.bulk_sql import insert_rows
from incidents.id_lists import ids_in, ids_subquery
from incidents.locking import serialize_case_writes
from incidents.models import Case

from . import encoder, inverted, large_arrays, sketch
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


def update_embeddings(case_ids: Iterable[str], *, encode: bool = True) -> int:
    """Encode and store the passages of `case_ids` whose text changed. Returns cases encoded
    (with `encode=False`: whose stored vectors were dropped).

    Queries per `BATCH` cases: the cases, their stored digests, then a delete and an insert
    of the changed ones. Without the model package nothing is encoded, as with
    `encode=False`. Memory: one batch's texts and vectors at a time (all of a 10,000-case
    import at once took 230 MB). `encode=False` only drops the stored vectors of passages
    that changed, so that no search scores an old text: a first bulk import leaves the
    encoding to the step after it (`encode_missing`), since the model reads about 5 cases a
    second on 2 cores.
    """
    ids = sorted(set(case_ids))
    if not ids:
        return 0
    # Without the model package nothing is encoded, but the vectors of changed passages are
    # still dropped (a digest needs no model): none is scored once the package is installed,
    # and `encode_missing` then finds the cases that have none.
    encode = encode and encoder.available()
    return sum(
        _update_batch(ids[start : start + BATCH], encode=encode) for start in range(0, len(ids), BATCH)
    )


BATCH = 500


def _stored_digests(ids: list[str]) -> dict[str, str]:
    return dict(CaseEmbedding.objects.filter(case_id__in=ids_in(ids)).values_list("case_id", "digest"))


def _changed_passages(
    ids: list[str], stored: dict[str, str] | None = None
) -> list[tuple[str, str, list[str]]]:
    """(case id, digest, passage texts) of the cases of `ids` whose stored vectors are not
    those of their passages (none stored, or another digest). Two queries (one when the
    `stored` digests of `ids` are given)."""
    stored = _stored_digests(ids) if stored is None else stored
    todo: list[tuple[str, str, list[str]]] = []
    for case in Case.objects.filter(id__in=ids_in(ids)).only(
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
    return todo


def _update_batch(ids: list[str], *, encode: bool = True) -> int:
    stored = _stored_digests(ids)
    if not encode and not stored:
        return 0  # nothing to drop (new cases): their passages need not be read
    todo = _changed_passages(ids, stored)
    if not todo:
        return 0
    if not encode:
        dropped = ids_in([case_id for case_id, _, _ in todo])
        return CaseEmbedding.objects.filter(case_id__in=dropped).delete()[0]
    vectors = encoder.encode([t for _, _, texts in todo for t in texts])
    rows, at = [], 0
    for case_id, key, texts in todo:
        block = vectors[at : at + len(texts)]
        at += len(texts)
        block = block[np.linalg.norm(block, axis=1) > 0]  # blank passages carry nothing
        rows.append((case_id, encoder.MODEL_NAME, key, len(block), block.astype(np.float32).tobytes()))
    CaseEmbedding.objects.filter(case_id__in=ids_in([row[0] for row in rows])).delete()
    return insert_rows(CaseEmbedding, ("case_id", "model", "digest", "passages", "vectors"), rows)


def unencoded() -> list[str]:
    """The published cases without stored vectors of the model, by id (none when the model
    package is not installed: they cannot be encoded). One query."""
    if not encoder.available():
        return []
    stored = CaseEmbedding.objects.filter(model=encoder.MODEL_NAME).values("case_id")
    return sorted(Case.objects.published().exclude(id__in=stored).values_list("id", flat=True))


def encode_missing() -> list[str]:
    """Encode the published cases that have no stored vectors (those a first bulk import left
    to the step after it, `deferred.py`), `BATCH` cases at a time. Returns their ids.

    The model runs outside the case-write lock (with the real model a batch takes minutes):
    each batch is encoded first, which keeps its vectors in the encoder's memo, then written
    under the lock in a transaction of its own by `update_embeddings`, which reads the
    passages again and encodes only what an edit changed meanwhile. Queries per batch: the
    passages twice, the digests twice, a delete and an insert. Each batch names its cases to
    the store cache (`store_cache.changed`), so a worker's passage vectors take them in as
    they are written (only theirs read again), not at the next write that names no case."""
    ids = unencoded()
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        encoder.encode([text for _, _, texts in _changed_passages(batch) for text in texts])
        with transaction.atomic():
            serialize_case_writes()
            update_embeddings(batch)
            store_cache.changed(batch)
    return ids


class CaseScores(Mapping[str, float]):
    """Case id -> semantic score, read-only, over one numpy array in `ids` order: a search
    scores every published case, and a dict of N Python floats cost more than the scoring.
    `array` and `above` give the scores and the best cases without going through Python."""

    def __init__(self, ids: list[str], position: dict[str, int], array: np.ndarray):
        self.ids = ids
        self.position = position  # case id -> index in `ids` and `array`
        self.array = array

    def __getitem__(self, case_id: str) -> float:
        return float(self.array[self.position[case_id]])

    def __contains__(self, case_id: object) -> bool:
        return case_id in self.position

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def above(self, threshold: float) -> list[str]:
        """The ids of cases scoring at least `threshold`, best first (ties by id)."""
        indexes = np.flatnonzero(self.array >= threshold)
        return sorted((self.ids[i] for i in indexes.tolist()), key=lambda c: (-self[c], c))

    def restricted(self, allowed: Collection[str]) -> CaseScores:
        """The scores of the cases of `allowed` only."""
        keep = [self.position[c] for c in allowed if c in self.position]
        keep.sort()
        ids = [self.ids[i] for i in keep]
        array = self.array[np.asarray(keep, dtype=np.int64)]
        return CaseScores(ids, {c: i for i, c in enumerate(ids)}, array)


# The int8 range a passage's components are scaled to (symmetric: -127..127).
INT8_PEAK = 127


def quantised(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 rows (k x d) as int8 rows and each row's scale (k, float32): row i is about
    `rows[i] * scales[i]`, each component within half a scale step (its largest component
    / 254). A zero row stays zero (scale 1)."""
    peaks = np.abs(block).max(axis=1) if block.shape[1] else np.zeros(len(block), dtype=np.float32)
    scales = (peaks / INT8_PEAK).astype(np.float32)
    scales[~(scales > 0)] = 1.0  # a zero row, or one so small its scale underflows to 0
    rows = np.rint(block / scales[:, None]).astype(np.int8)
    return rows, scales


@dataclass
class Vectors:
    """Every published case's passage vectors: `matrix[i]` belongs to `ids[owner[i]]`; a
    case's passages are consecutive rows (`owner` never decreases). `matrix` is float32,
    or int8 with `scale` (row i is `matrix[i] * scale[i]`, see `quantised`), in memory or
    read from a file (`large_arrays.FileRows`). `sketched`: the rows' sketch and its
    projection (`sketch.py`, row i of the int8 array row i's), computed when first needed
    (`sketched_rows`) if not given."""

    ids: list[str]
    owner: np.ndarray
    matrix: np.ndarray | large_arrays.FileRows
    scale: np.ndarray | None = None
    sketched: tuple[sketch.Projection, np.ndarray | large_arrays.FileRows] | None = None
    lists: inverted.InvertedFile | None = None
    _sketching: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def sketched_rows(self) -> tuple[sketch.Projection, np.ndarray | large_arrays.FileRows]:
        """`sketched`, computed the first time it is asked for (once, whatever the threads
        asking): the projection fitted on up to `sketch.SAMPLE` rows at even intervals, then
        every row projected, `sketch.BLOCK_ROWS` at a time (at 100,000 cases about 2 CPU s).
        Rows read from a file (`large_arrays.FileRows`) have their sketch filed beside them
        (`_sketch_folder`), read from it a block at a time by each search: the workers
        holding the same rows fit the same directions, so they share one file."""
        with self._sketching:
            if self.sketched is None:
                stride = max(1, -(-len(self.matrix) // sketch.SAMPLE))
                sample = _FloatRows(self, np.arange(0, len(self.matrix), stride))
                projection = sketch.Projection.fitted(sample)
                width = len(projection.basis)
                with large_arrays.Rows(len(self.matrix), width, np.int8, self._sketch_folder()) as rows:
                    for start in range(0, len(self.matrix), sketch.BLOCK_ROWS):
                        at = np.arange(start, min(start + sketch.BLOCK_ROWS, len(self.matrix)))
                        rows.append(projection.rows(self._floats(at)))
                    self.sketched = (projection, rows.finish())
            return self.sketched

    def inverted_file(self) -> inverted.InvertedFile:
        """`lists`, the inverted file of the sketch (`inverted.py`), built the first time it
        is asked for (once, whatever the threads asking; at 100,000 cases about 2 CPU s after
        the sketch's 2) and filed beside the rows as the sketch is."""
        projection, rows = self.sketched_rows()
        with self._sketching:
            if self.lists is None:
                self.lists = inverted.InvertedFile.built(projection, rows, self._sketch_folder())
            return self.lists

    def _sketch_folder(self) -> Path | None:
        """Where this store's sketch is filed to be shared: the folder of its rows' file
        (None, held in memory, for rows in memory). At 100,000 cases the sketch is 48 MB,
        which each worker held of its own."""
        return self.matrix.path.parent if isinstance(self.matrix, large_arrays.FileRows) else None

    def _floats(self, rows: np.ndarray) -> np.ndarray:
        """Rows `rows` (sorted numbers) as float32 vectors (int8 rows times their scale)."""
        block = self.matrix[rows].astype(np.float32)
        if self.scale is not None:
            block *= self.scale[rows, None]
        return block

    @functools.cached_property
    def _position(self) -> dict[str, int]:
        return {case_id: i for i, case_id in enumerate(self.ids)}

    @functools.cached_property
    def _starts(self) -> tuple[np.ndarray, np.ndarray]:
        """Each case's first row and its number of rows."""
        counts = np.bincount(self.owner, minlength=len(self.ids))
        return _firsts(counts), counts

    def case_scores(self, query: np.ndarray) -> CaseScores:
        """Case id -> semantic score of the unit vector `query` (cosine-like, about -0.2..1.2):
        the best passage plus `MEAN_SHARE` times the mean of the case's passages."""
        if not self.ids:
            return CaseScores([], {}, np.zeros(0))
        starts, counts = self._starts
        if not len(self.matrix):  # no case has a passage to match
            return CaseScores(self.ids, self._position, np.full(len(self.ids), -1.0))
        return CaseScores(self.ids, self._position, _combined(self._similarities(query), starts, counts))

    def _similarities(self, query: np.ndarray) -> np.ndarray:
        """Every row's dot product with `query` (float64 array)."""
        if self.scale is None:
            return (np.asarray(self.matrix) @ query).astype(np.float64)
        # int8 rows read as float32 a block at a time (a whole float32 copy is what
        # quantising saves); blocks are multiples of `PRODUCT_BLOCK`, so a row gets the
        # value it gets when gathered (`_gathered`).
        query = query.astype(np.float32, copy=False)
        sims = np.empty(len(self.matrix), dtype=np.float32)
        buffer = np.empty((QUANTISED_ROWS, self.matrix.shape[1]), dtype=np.float32)
        for start in range(0, len(self.matrix), QUANTISED_ROWS):
            rows = self.matrix[start : start + QUANTISED_ROWS]
            block = buffer[: len(rows)]
            block[...] = rows  # int8 to float32 is exact
            np.dot(block, query, out=sims[start : start + len(rows)])
        sims *= self.scale
        return sims.astype(np.float64)

    def scores_of(self, query: np.ndarray, case_ids: Iterable[str]) -> dict[str, float]:
        """`case_scores(query)` of the cases of `case_ids` that have vectors, case id ->
        score: only their rows are read and scored (O(their passages), where `case_scores`
        scores every passage of the store)."""
        wanted = [c for c in dict.fromkeys(case_ids) if c in self._position]
        if not wanted:
            return {}
        at = np.fromiter((self._position[c] for c in wanted), dtype=np.int64, count=len(wanted))
        return dict(zip(wanted, self._gathered(query, at).tolist(), strict=True))

    def case_vector(self, case_id: str) -> np.ndarray | None:
        """The unit mean of `case_id`'s passage vectors (its row of `case_matrix`, float32,
        384), read from its rows alone; None for a case without vectors here."""
        at = self._position.get(case_id)
        if at is None:
            return None
        starts, counts = self._starts
        start, stop = int(starts[at]), int(starts[at] + counts[at])
        rows = self.matrix[start:stop].astype(np.float32)
        if self.scale is not None:
            rows *= self.scale[start:stop, None]
        total = rows.sum(axis=0)
        norm = float(np.linalg.norm(total))
        return total / norm if norm > 0 else None

    def search_scores(
        self,
        query: np.ndarray,
        *,
        allowed: Collection[str] | None = None,
        also: Iterable[str] = (),
        two_stages: bool = True,
    ) -> CaseScores:
        """The semantic scores a search fuses with its lexical ranking (`fusion.fuse`), of the
        unit vector `query`: for every case (of `allowed` only, when given) when there are at
        most `SEARCH_DEPTH` of them, exactly `case_scores(query)` (`subset_scores`); otherwise
        for the `SEARCH_DEPTH` cases best by their sketches (`_approximate`; from
        `INVERTED_FROM` cases the `INVERTED_DEPTH` best by the sketches of the passages the
        inverted file's nearest lists hold, `_listed_nearest`) and the cases of
        `also` (the lexical ranking's, so that each of its cases has its semantic score),
        each with the value `scores_of` gives it. What this leaves out are cases that more
        than `SEARCH_DEPTH` others beat by their sketches: semantic candidates of fusion only
        as weak partial matches, after every match, if at all. A case of `also` beyond them
        is ranked among the cases scored, so above the cases left out (its reciprocal rank
        weighs a few thousandths of the relevance model's log-odds there).

        `two_stages=False` scores every (allowed) case exactly whatever their number: for
        vectors read for one request (the store cache off), whose sketch would be built, at
        about 2 CPU s at 100,000 cases, for that one search and thrown away."""
        if allowed is None:
            if len(self.ids) <= SEARCH_DEPTH or not two_stages:
                return self.case_scores(query)
            hidden = None
        else:
            keep = np.fromiter((self._position[c] for c in allowed if c in self._position), dtype=np.int64)
            if len(keep) <= SEARCH_DEPTH or not two_stages:
                return self.subset_scores(query, allowed)
            hidden = np.ones(len(self.ids), dtype=bool)
            hidden[keep] = False
        if len(self.ids) >= INVERTED_FROM:
            nearest = self._listed_nearest(query, hidden)
        else:
            nearness = self._approximate(query)
            if hidden is not None:
                nearness[hidden] = -np.inf
            nearest = np.argpartition(-nearness, SEARCH_DEPTH - 1)[:SEARCH_DEPTH]
            nearest = nearest[np.isfinite(nearness[nearest])]
        named = np.fromiter((self._position[c] for c in also if c in self._position), dtype=np.int64)
        if hidden is not None:
            named = named[~hidden[named]]
        at = np.union1d(nearest, named)
        ids = [self.ids[i] for i in at.tolist()]
        return CaseScores(ids, dict(zip(ids, range(len(ids)), strict=True)), self._gathered(query, at))

    def _approximate(self, query: np.ndarray) -> np.ndarray:
        """Each case's approximate score for `query` from its passages' sketches (float64,
        higher is nearer; -inf for a case without passages): `case_scores`' combination of
        each passage's similarity as the sketch gives it (`sketch.similarities`, lower than
        the exact one by the same amount for every passage, so the same order)."""
        starts, counts = self._starts
        if not len(self.matrix):
            return np.full(len(self.ids), -np.inf)
        projection, rows = self.sketched_rows()
        out = _combined(sketch.similarities(rows, projection.weights(query)), starts, counts)
        out[counts == 0] = -np.inf  # never chosen (`_combined` gives such a case -1)
        return out

    def _listed_nearest(self, query: np.ndarray, hidden: np.ndarray | None) -> np.ndarray:
        """The positions of the (at most) `INVERTED_DEPTH` cases (not `hidden`) whose best
        passage is nearest `query` by its sketch among the passages of the lists the
        inverted file reads (`inverted.InvertedFile.nearest`: `inverted.PROBES` lists, more
        in proportion when only a share of the cases is allowed, so that about as many
        allowed passages are read)."""
        index = self.inverted_file()
        projection, _ = self.sketched_rows()
        probes = inverted.PROBES
        if hidden is not None:
            allowed = max(int(len(hidden) - hidden.sum()), 1)
            probes = math.ceil(probes * len(hidden) / allowed)
        rows, sims = index.nearest(projection, query, probes)
        cases = self.owner[rows]
        if hidden is not None:
            shown = ~hidden[cases]
            cases, sims = cases[shown], sims[shown]
        # The best rows first (a case has a few), then each case at its best row.
        best = min(len(sims), PASSAGES_PER_CASE * INVERTED_DEPTH)
        if best < len(sims):
            top = np.argpartition(-sims, best - 1)[:best]
            cases, sims = cases[top], sims[top]
        by_score = np.argsort(-sims, kind="stable")
        unique, firsts = np.unique(cases[by_score], return_index=True)
        return unique[np.argsort(firsts, kind="stable")[:INVERTED_DEPTH]]

    def subset_scores(self, query: np.ndarray, allowed: Collection[str]) -> CaseScores:
        """`case_scores(query).restricted(allowed)`: the scores of the allowed cases only, as
        a filtered search ranks them. When they are at most `SUBSET_SHARE` of a store of at
        least `SUBSET_FROM` cases, only their rows are scored (`scores_of`); otherwise every
        row is (a large share costs as much either way, and a small store's filtered search
        keeps the same floating-point values as its unfiltered one). Scored alone, a row has
        the value it has in the product over every row (`_product`), but for the store's
        last few rows (a different BLAS kernel: about 1e-8 apart), so cases with the same
        passages still tie and go by id. At 100,000 cases a search within a few facet values
        scored 500,000 passages to keep a few dozen."""
        if len(self.ids) < SUBSET_FROM or len(allowed) > SUBSET_SHARE * len(self.ids):
            return self.case_scores(query).restricted(allowed)
        keep = sorted(self._position[c] for c in allowed if c in self._position)
        ids = [self.ids[i] for i in keep]
        array = self._gathered(query, np.asarray(keep, dtype=np.int64)) if keep else np.zeros(0)
        return CaseScores(ids, {c: i for i, c in enumerate(ids)}, array)

    def _gathered(self, query: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The scores of the cases at positions `at` (in that order), from their rows alone."""
        starts, counts = self._starts
        own = counts[at]
        # Each wanted case's rows, consecutive: row j of case i is starts[i] + j.
        first = _firsts(own)
        rows = np.repeat(starts[at] - first, own) + np.arange(int(own.sum()), dtype=np.int64)
        # A block of rows at a time: gathering every candidate's rows at once copied about
        # 15 MB per 2,000 candidates, and sixteen log matches at once took a worker at
        # 10,000 cases from 386 to 695 MB at its peak.
        sims = np.empty(len(rows), dtype=np.float64)
        for start in range(0, len(rows), GATHER_ROWS):
            block = rows[start : start + GATHER_ROWS]
            if self.scale is None:
                sims[start : start + len(block)] = _product(self.matrix[block], query)
            else:
                values = _product(self.matrix[block].astype(np.float32), query.astype(np.float32, copy=False))
                sims[start : start + len(block)] = values * self.scale[block]
        return _combined(sims, first, own)

    def replacing(self, case_ids: frozenset[str], fresh: Vectors, *, folder: Path | None = None) -> Vectors:
        """These vectors without the cases of `case_ids`, with `fresh`'s cases (each in
        `case_ids`) put in their place in id order: the arrays `load_vectors` builds from the
        same rows (with `folder`, filed there as `load_vectors` files them). The rows are
        copied by runs of consecutive kept cases (a slice each, no index arrays the size of
        the matrix)."""
        starts, counts = self._starts
        fresh_starts, fresh_counts = fresh._starts
        keep = np.ones(len(self.ids), dtype=bool)
        keep[[self._position[c] for c in case_ids if c in self._position]] = False
        kept = np.flatnonzero(keep)
        kept_ids = [self.ids[i] for i in kept.tolist()]
        # Before which kept case each fresh one goes, and where runs of kept cases break.
        goes_before = [bisect.bisect_left(kept_ids, case_id) for case_id in fresh.ids]
        breaks = {0, len(kept), *goes_before, *(np.flatnonzero(np.diff(kept) != 1) + 1).tolist()}
        bounds = sorted(breaks)
        ids: list[str] = []
        case_counts: list[np.ndarray] = []
        pieces: list[tuple[Vectors, int, int]] = []  # (source, first row, end row)
        inserted = 0
        for low, high in zip(bounds, [*bounds[1:], None], strict=True):
            while inserted < len(fresh.ids) and goes_before[inserted] == low:
                first = int(fresh_starts[inserted])
                pieces.append((fresh, first, first + int(fresh_counts[inserted])))
                ids.append(fresh.ids[inserted])
                case_counts.append(fresh_counts[inserted : inserted + 1])
                inserted += 1
            if high is None or low == high:
                continue
            run = kept[low:high]
            pieces.append((self, int(starts[run[0]]), int(starts[run[-1]] + counts[run[-1]])))
            ids.extend(kept_ids[low:high])
            case_counts.append(counts[run])
        rows = sum(end - first for _, first, end in pieces)
        scale = None if self.scale is None else np.empty(rows, dtype=self.scale.dtype)
        # The sketch, when this store has one, follows: the rows kept keep theirs, the fresh
        # ones are projected on the same directions.
        sketched = self.sketched
        with contextlib.ExitStack() as stack:
            matrix = stack.enter_context(
                large_arrays.Rows(rows, self.matrix.shape[1], self.matrix.dtype, folder)
            )
            sketches = (
                None
                if sketched is None
                else stack.enter_context(large_arrays.Rows(rows, sketched[1].shape[1], np.int8, folder))
            )
            # The inverted file, when this store has one, follows too: the rows kept stay in
            # their lists, the fresh ones join their nearest centroid's.
            lists = self.lists if sketched is not None else None
            list_pieces: list[np.ndarray] = []
            for source, first, end in pieces:
                if lists is not None and source is self:
                    list_pieces.append(lists.lists[first:end])
                if scale is not None:
                    assert source.scale is not None  # both read by `load_vectors`
                    scale[matrix.count : matrix.count + end - first] = source.scale[first:end]
                # A run at a time from a file would read it whole into memory.
                for start in range(first, end, COPY_ROWS):
                    stop = min(start + COPY_ROWS, end)
                    matrix.append(source.matrix[start:stop])
                    if sketched is not None and sketches is not None:
                        projection, held = sketched
                        block = (
                            held[start:stop]
                            if source is self
                            else projection.rows(source._floats(np.arange(start, stop)))
                        )
                        sketches.append(block)
                        if lists is not None and source is not self:
                            list_pieces.append(inverted.assigned(lists.centroids, projection, block))
            per_case = np.concatenate(case_counts) if case_counts else np.zeros(0, dtype=np.int64)
            owner = np.repeat(np.arange(len(ids), dtype=np.int64), per_case)
            sketch_of = None if sketched is None or sketches is None else (sketched[0], sketches.finish())
            listed = None
            if lists is not None and sketch_of is not None:
                placed = np.concatenate(list_pieces) if list_pieces else np.zeros(0, dtype=np.int32)
                listed = lists.with_rows(placed, sketch_of[1], folder)
            return Vectors(ids, owner, matrix.finish(), scale, sketch_of, listed)

    def case_matrix(self) -> np.ndarray:
        """One unit vector per case (the normalised mean of its passages), in `ids` order."""
        n = len(self.ids)
        sums = np.zeros((n, encoder.DIMENSIONS), dtype=np.float32)
        if self.scale is None:
            np.add.at(sums, self.owner, np.asarray(self.matrix))
        else:
            for start in range(0, len(self.matrix), QUANTISED_ROWS):
                stop = start + QUANTISED_ROWS
                rows = self.matrix[start:stop].astype(np.float32) * self.scale[start:stop, None]
                np.add.at(sums, self.owner[start:stop], rows)
        sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        return sums


@dataclass(frozen=True)
class _FloatRows:
    """Rows `at` (sorted numbers) of `vectors` as float32 vectors, read a slice at a time
    (`Vectors._floats`): the sample a sketch's directions are fitted on (`sketch.Sample`),
    which read whole was a float32 copy of 10,000 rows (15 MB) at a worker's cold start."""

    vectors: Vectors
    at: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.at), self.vectors.matrix.shape[1])

    def __len__(self) -> int:
        return len(self.at)

    def __getitem__(self, rows: slice) -> np.ndarray:
        return self.vectors._floats(self.at[rows])


GATHER_ROWS = 1024  # rows `scores_of` copies and scores at a time (1.5 MB)
# int8 rows read as float32 per block of a full product (768 KB: the block stays in cache).
# 500,000 passages on the Xeon of 5 December: 4,096 rows 95 ms, 1,024 82 ms, 512 69 ms,
# 256 76 ms (float32 rows 49 ms: converting the rows is most of the cost). A multiple of
# PRODUCT_BLOCK.
QUANTISED_ROWS = 512
# `subset_scores` scores the allowed cases' rows alone from a store of this many cases, when
# they are at most this share of it.
SUBSET_FROM = 20_000
SUBSET_SHARE = 0.25
# Above this many (allowed) cases a search scores exactly only this many, the nearest by
# their sketches, and the lexical ranking's (`Vectors.search_scores`).
SEARCH_DEPTH = 2000
# From this many cases a search's first stage reads the passages of a few lists of the
# inverted file (`inverted.py`) instead of every passage's sketch, and scores exactly the
# `INVERTED_DEPTH` cases best by their nearest passage there.
INVERTED_FROM = 20_000
INVERTED_DEPTH = 500
PASSAGES_PER_CASE = len(PASSAGES)
# Rows copied (or sketched) at a time from one matrix to another: 3 MB of int8 rows.
COPY_ROWS = 8192


# BLAS computes a product's last rows (fewer than its block of rows) with another kernel,
# whose sums differ in the last bits: gathered rows are padded to a multiple of this, so
# each row gets the value it gets in the product over every row (`case_scores`), and two
# cases with the same passages tie exactly whichever cases are scored (they did not in
# 1,895 of 2,000 queries without it). Only the store's own last rows keep the other kernel.
PRODUCT_BLOCK = 16


def _product(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """`rows @ query`, each row's value the one it has in a product over a longer matrix."""
    short = -len(rows) % PRODUCT_BLOCK
    if short:
        rows = np.concatenate([rows, np.zeros((short, rows.shape[1]), dtype=rows.dtype)])
    return (rows @ query)[: len(rows) - short]


def _firsts(counts: np.ndarray) -> np.ndarray:
    """Where each of consecutive runs of `counts` rows starts."""
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)


def _combined(sims: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each case's score from its passages' similarities `sims` (case i's are the `counts[i]`
    consecutive values from `starts[i]`): the best plus `MEAN_SHARE` times the mean; -1 for
    a case without passages."""
    has = counts > 0
    best = np.full(len(counts), -1.0)
    total = np.zeros(len(counts))
    if has.any():
        # reduceat over the consecutive rows of the cases that have some: a case with none
        # has no range of its own (its start is the next case's, or the end).
        firsts = starts[has]
        best[has] = np.maximum.reduceat(sims, firsts)
        total[has] = np.add.reduceat(sims, firsts)
    return best + MEAN_SHARE * (total / np.maximum(counts, 1))


FIRST_ROWS = 1024  # rows a subset's matrix starts with (it doubles when full)


def load_vectors(cases: QuerySet[Case] | None = None, *, folder: Path | None = None) -> Vectors:
    """The stored vectors of published cases (of the `cases` queryset only, when given),
    quantised to int8 (`quantised`): one query, its rows streamed.

    For every published case the query also counts them (a subquery over the case table,
    in the same statement, so of the same snapshot), and the matrix is allocated for
    `len(PASSAGES)` rows each, the most a case has (`_update_batch`), then filled a block of
    rows at a time: pages never written are never resident, so the matrix costs what it
    holds. Collecting every row's bytes and then concatenating held the vectors two or
    three times over, and a matrix doubling as it filled held its last two sizes at once
    (at 100,000 cases a worker peaked at 1.25 GB for a 733 MiB float32 matrix). A subset
    (`cases`) is not counted, which would run its conditions (a full-text exclusion) a
    second time: its matrix grows by doubling, as does the whole store's should a row hold
    more passages than `PASSAGES` (one not written by `_update_batch`). (Summing the rows'
    passage counts instead read every embedding row twice: 1.8 s at 100,000 cases on
    SQLite, where each row fills a page.)

    `folder`: the int8 rows are written to a file there and read from it where needed
    (`large_arrays.FileRows`: the page cache, shared with every process that reads the same
    rows, `large_arrays.Rows`), instead of held in this process's own memory."""
    rows = CaseEmbedding.objects.filter(case__status=Case.Status.PUBLISHED, model=encoder.MODEL_NAME)
    if cases is not None:
        rows = rows.filter(case_id__in=cases.order_by().values("id"))
        values = rows.order_by("case_id").annotate(cases=Value(0))
    else:
        published = Case.objects.published().order_by().annotate(one=Value(1)).values("one")
        values = rows.order_by("case_id").annotate(
            cases=Subquery(published.annotate(n=Count("id")).values("n"))
        )
    matrix: large_arrays.Rows | None = None
    scale = np.empty(0, dtype=np.float32)
    owner = np.empty(0, dtype=np.int64)
    ids: list[str] = []
    at = 0
    # float32 blocks not yet quantised: quantised many rows at a time (a few numpy calls per
    # case cost more than reading it).
    pending: list[np.ndarray] = []
    with contextlib.ExitStack() as stack:
        for case_id, passages_count, data, cases_count in values.values_list(
            "case_id", "passages", "vectors", "cases"
        ).iterator(chunk_size=1000):
            if matrix is None:
                room = len(PASSAGES) * cases_count if cases_count else FIRST_ROWS
                matrix = stack.enter_context(large_arrays.Rows(room, encoder.DIMENSIONS, np.int8, folder))
                scale, owner = np.empty(room, dtype=np.float32), np.empty(room, dtype=np.int64)
            if at + passages_count > len(owner):
                scale, owner = _grown((scale, owner), at, max(at + passages_count, 2 * len(owner)))
            pending.append(np.frombuffer(data, dtype=np.float32).reshape(passages_count, encoder.DIMENSIONS))
            owner[at : at + passages_count] = len(ids)
            ids.append(case_id)
            at += passages_count
            if at - matrix.count >= QUANTISED_ROWS:
                _flush(pending, matrix, scale)
        if matrix is None:
            return Vectors([], owner, np.empty((0, encoder.DIMENSIONS), dtype=np.int8), scale)
        _flush(pending, matrix, scale)
        # Views: a copy would hold both for a moment.
        return Vectors(ids, owner[:at], matrix.finish(), scale[:at])


def _flush(pending: list[np.ndarray], matrix: large_arrays.Rows, scale: np.ndarray) -> None:
    """Quantise the `pending` float32 blocks into `matrix` (after its rows) and `scale`
    (from the same row); empties `pending`."""
    if not pending:
        return
    rows, scales = quantised(np.concatenate(pending))
    scale[matrix.count : matrix.count + len(rows)] = scales
    matrix.append(rows)
    pending.clear()


def _grown(arrays: tuple[np.ndarray, ...], filled: int, rows: int) -> tuple[np.ndarray, ...]:
    """`arrays` with room for `rows` rows, their first `filled` copied; the rest left
    unwritten (`np.resize` would write it all)."""
    grown = tuple(np.empty(rows, dtype=old.dtype) for old in arrays)
    for new, old in zip(grown, arrays, strict=True):
        new[:filled] = old[:filled]
    return grown


def process_vectors() -> Vectors:
    """Every published case's vectors, kept in this process per store generation
    (`store_cache.local`: one cache read checks they are current); read each time, one query,
    with the store cache off. What search and log matching score a query against. After a
    write that names its cases, only theirs are read again (`with_cases_read_again`)."""
    return store_cache.local(
        "vectors", lambda: load_vectors(folder=shared_folder()), update=with_cases_read_again
    )


def shared_folder() -> Path | None:
    """Where the vectors a process keeps per store generation are filed, so that the workers
    holding the same rows share one copy (`large_arrays.Rows`): `vectors/` in the encoder's
    cache folder. None (each process holds its own) without a writable cache folder, or
    with the store cache off, when nothing is kept and a file per search would only cost."""
    if not settings.STORE_CACHE:
        return None
    folder = encoder._cache_dir()
    if folder is None:
        return None
    try:
        (folder / "vectors").mkdir(exist_ok=True)
    except OSError:
        return None
    return folder / "vectors"


# Above this share of the held cases changed, reading everything again costs about as much.
REREAD_SHARE = 0.25


def with_cases_read_again(vectors: Vectors, case_ids: Collection[str]) -> Vectors:
    """`vectors` with the rows of `case_ids` read again (one query; dropped when a case is no
    longer published or has no vectors, added when it newly has): row for row what
    `load_vectors()` reads now, for the cost of the changed cases and one copy of the rows.
    Every published case's vectors read again when more than `REREAD_SHARE` changed."""
    if not case_ids:
        return vectors
    folder = shared_folder()
    if len(case_ids) > REREAD_SHARE * max(len(vectors.ids), 1):
        return load_vectors(folder=folder)
    fresh = load_vectors(Case.objects.filter(id__in=ids_subquery(sorted(case_ids))))
    return vectors.replacing(frozenset(case_ids), fresh, folder=folder)


def candidate_scores(query: np.ndarray, candidates: list[str]) -> dict[str, float]:
    """`Vectors.case_scores` of `query` for the published cases `candidates` only (to 6
    decimals). With the store cache on, every published case's vectors are kept in this
    process per store generation (as search keeps them) and the candidates' rows scored: no
    query. Off, the candidates' vectors are read: one query."""
    scores: Mapping[str, float]
    if settings.STORE_CACHE:
        scores = process_vectors().scores_of(query, candidates)
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
