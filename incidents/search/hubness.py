"""Hubness of the case embeddings, stored, for the similar-case score's semantic part.

In a space of sentence embeddings some cases ("hubs") lie close to many others: told in
the common words of the library, their mean embedding is near everybody's, and they took
places in lists where a case told in the same specific words belonged. The correction
(CSLS, "cross-domain similarity local scaling", Conneau et al. 2018) scores a pair by its
cosine minus half of each case's hubness, centred:

    adjusted(a, b) = cos(a, b) - (h(a) + h(b)) / 2 + centre

where h(x) is the mean cosine of x to its `NEAREST` nearest published cases by embedding
and `centre` the mean h over the library (so that a pair of ordinary cases keeps about its
cosine, and the labels and the weights of the three parts keep their scale). The
similar-case score clips it to 0..1 as it clipped the cosine (`similarity._Corpus.compare`,
`pair_scores.PairScores`): no part is ever negative. On the tuning judgements
(eval/similar.json) k 5 did better than k 10 (eval/README.md, 6 December).

Stored per profile (`CaseProfile.hub_nearest`, `CaseProfile.hubness`): the k nearest as
[case id, cosine] best first (ties by id), and their mean. Kept up to date:
- a full rebuild (`similarity.rebuild_neighbours`) computes every case's by blocks of
  matrix products (`every_case`: O(N²) products, like the pair scores it precedes);
- an increment (`update`) computes a new or changed case's by one matrix-vector product
  over the cases it is scored against, and touches another case only where a changed case
  enters its k nearest (its cosine reaches the k-th stored one: the lists merge, exactly)
  or leaves them (it was one of them: its k nearest are computed again over the pool, one
  matrix-vector product);
- a case deleted (`similarity.hubness_before_delete`, called by `index.cases_deleting`)
  leaves every list naming it the same way: those lists are found by their text
  (`holders`, whatever the pool), so no stored list names a deleted case.
Over a library below `settings.WORD_STATISTICS_FROM` the pool is every published case and
the stored values equal a full recompute. Above it an increment reads only its candidate
corpus (`similarity._candidate_corpus`), and the pool is that corpus: a changed case's
nearest are those among its candidates (cases sharing its strongest words and terms, and
the stored neighbours of those involved), a list losing a case is refilled from the pool
and its stored nearest outside the pool that are still published, and a case outside the
pool is not looked at. Such values are approximations, not the exact ones: a case's
nearest outside the pool are not seen (its h too low), and a case outside the pool keeps
in its list a case retracted or merged away since (its h too high) until an increment
pools it (a pooled list loses every case no longer published, `unpublished`, and is
refilled) or that case is deleted. `manage.py rebuild_search` recomputes everything.

What is not redone: the stored similar-case scores of pairs with a case whose h moved keep
the old h (each pair score moves by `SEMANTIC_WEIGHT` / 2 times that change, or less), and
every untouched pair the centre of its time (the mean of N values, moved by a changed case's
share of it), as they keep the term rarities of the time they were computed
(`similarity.py`), except in a list a changed case enters: its kept neighbours are scored
again beside it (`similarity.update_neighbours`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np
import orjson
from django.db import connection
from django.db.models import Avg, Q, TextField
from django.db.models.functions import Cast
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from incidents.id_lists import ids_subquery
from incidents.models import Case

from .models import CaseProfile
from .profiles import Profile, mean_cosine

# How many nearest cases a case's hubness is the mean cosine of. Chosen on the tuning
# judgements: precision@3 0.769 without the correction, k 5 0.793, k 10 0.773.
NEAREST = 5
# Cosines from products over matrices of other shapes differ in the last float32 bits: a
# case entering a list at its k-th cosine within this is looked at (and merged exactly).
MARGIN = 1e-5
BLOCK_CELLS = 4_000_000  # cells of one block of cosines (16 MB of float32)

Nearest = list[tuple[str, float]]


class Pool:
    """The unit mean embeddings of the cases an increment or a rebuild scores (those that
    have one), as one float32 matrix (n x d, `ids` order)."""

    def __init__(self, profiles: Iterable[Profile]):
        held = [p for p in profiles if p.embedding is not None]
        self.ids = [p.id for p in held]
        self.index = {case_id: i for i, case_id in enumerate(self.ids)}
        dims = held[0].embedding.shape[0] if held and held[0].embedding is not None else 0
        self.matrix = np.zeros((len(held), dims), dtype=np.float32)
        if held:
            self.matrix[:] = np.stack([p.embedding for p in held if p.embedding is not None])

    def cosines(self, vectors: np.ndarray) -> np.ndarray:
        """Cosines (len(vectors) x n, float32) of unit `vectors` with every pooled case. The
        callers hold one BLAS thread (`one_thread`) around all their products."""
        return np.asarray(vectors, dtype=np.float32) @ self.matrix.T

    def nearest(self, row: np.ndarray, skip: Collection[int] = ()) -> Nearest:
        """The `NEAREST` best of one row of cosines (its columns the pooled cases), leaving
        out the columns `skip` (the case itself), best first, ties by id."""
        values = row.astype(np.float64)
        if skip:
            values[list(skip)] = -np.inf
        keep = min(NEAREST, int(np.isfinite(values).sum()))
        if keep <= 0:
            return []
        # Every column tied with the k-th is kept, so that ties go by id.
        kth = np.partition(values, len(values) - keep)[len(values) - keep]
        chosen = np.flatnonzero(values >= kth)
        ranked = sorted((-float(values[j]), self.ids[j]) for j in chosen.tolist())[:keep]
        return [(case_id, -negative) for negative, case_id in ranked]


def one_thread() -> threadpool_limits:
    """One BLAS thread, as the pair scores hold: an import runs beside the server's workers,
    and OpenBLAS's spinning threads starve them on a small machine. Entered once per call
    of `update` or `every_case`: entering it reads the process's libraries (10 to 25 ms)."""
    return threadpool_limits(limits=1, user_api="blas")


def _best(entries: Iterable[tuple[str, float]]) -> Nearest:
    """The `NEAREST` best of `entries`, best first, ties by id (as `Pool.nearest` orders)."""
    return sorted(entries, key=lambda s: (-s[1], s[0]))[:NEAREST]


def every_case(profiles: Sequence[Profile]) -> dict[str, Nearest]:
    """Case id -> its nearest among `profiles` (every published one, for a rebuild), for each
    profile with an embedding: every pair's cosine by blocks of matrix products, O(N²)."""
    pool = Pool(profiles)
    found: dict[str, Nearest] = {}
    n = len(pool.ids)
    step = max(1, min(1024, BLOCK_CELLS // max(n, 1)))
    with one_thread():
        for start in range(0, n, step):
            block = list(range(start, min(start + step, n)))
            rows = pool.cosines(pool.matrix[block])
            for row, i in zip(rows, block, strict=True):
                found[pool.ids[i]] = pool.nearest(row, (i,))
    return found


def update(
    profiles: Sequence[Profile], changed: Collection[str], gone: Collection[str] = ()
) -> dict[str, Nearest | None]:
    """The nearest of the cases among `profiles` (the pool: every published profile, or a
    candidate corpus) that an increment changes, case id -> new nearest (None: no longer
    any, its embedding gone). `changed`: the new or changed cases among them (their
    embeddings are those stored now); `gone`: cases no longer published (retracted,
    deleted), left out of the pool. Each profile's `hub` is what is stored (set in place to
    the new value). A stored list naming a case the pool lacks and no longer published
    loses it as a list loses a gone case. Cost: one matrix-vector product over the pool per
    changed case and per list a case leaves; the other lists merge a few cosines or are not
    touched. Queries: one when a pooled case's list names a case the pool lacks (which of
    them are published), else none: none over every published case, which holds them all.
    """
    with one_thread():
        return _update(profiles, changed, gone)


def _update(
    profiles: Sequence[Profile], changed: Collection[str], gone: Collection[str]
) -> dict[str, Nearest | None]:
    left = set(gone) | set(changed)
    pool = Pool(p for p in profiles if p.id not in gone)
    by_id = {p.id: p for p in profiles}
    # A stored list may name a case the pool lacks that is no longer published (retracted,
    # merged away or deleted while that list was outside an increment's pool): it leaves the
    # list as a retracted case does, so neither a merge nor a refill keeps it.
    named = {o for case_id in pool.ids for o, _ in by_id[case_id].hub or []}
    left |= unpublished(named - left - pool.index.keys())
    updates: dict[str, Nearest | None] = {}
    live = [case_id for case_id in sorted(changed) if case_id in pool.index]
    for case_id in sorted(set(changed) - set(live)):
        if case_id in by_id and by_id[case_id].hub is not None:
            updates[case_id] = None  # published without an embedding now
    rows = pool.cosines(pool.matrix[[pool.index[c] for c in live]]) if live else np.zeros((0, len(pool.ids)))
    for case_id, row in zip(live, rows, strict=True):
        updates[case_id] = pool.nearest(row, (pool.index[case_id],))
    # Which lists a changed case may enter: its cosine reaches their k-th (a list short of k,
    # or none stored, takes any), compared by array operations; the floors are gathered and
    # the lists merged by a Python step per pooled case.
    floors = np.full(len(pool.ids), -np.inf)
    for j, case_id in enumerate(pool.ids):
        stored = by_id[case_id].hub
        if stored is not None and len(stored) >= NEAREST:
            floors[j] = stored[-1][1]
    reached: np.ndarray = np.zeros(len(pool.ids), dtype=bool)
    if live:
        reached = np.asarray((rows >= floors - MARGIN).any(axis=0))
    refill: list[int] = []
    for j, case_id in enumerate(pool.ids):
        if case_id in left:
            continue
        stored = by_id[case_id].hub
        if stored is None or any(other in left for other, _ in stored):
            refill.append(j)  # none stored yet, or a changed case left its list (or moved in it)
        elif reached[j]:
            column = rows[:, j].tolist()
            entering = [(live[i], float(c)) for i, c in enumerate(column) if c >= floors[j] - MARGIN]
            found = _best([*stored, *entering])
            if found != stored:
                updates[case_id] = found
    # The lists a changed case left, computed again over the pool: one product for them all.
    again = pool.cosines(pool.matrix[refill]) if refill else np.zeros((0, len(pool.ids)))
    for j, row in zip(refill, again, strict=True):
        case_id = pool.ids[j]
        stored = by_id[case_id].hub
        found = _refilled(pool, j, row, [s for s in stored or [] if s[0] not in left])
        if found != stored:
            updates[case_id] = found
    for case_id, new in updates.items():
        if case_id in by_id:
            by_id[case_id].hub = new
    return updates


def unpublished(case_ids: Collection[str]) -> set[str]:
    """Those of `case_ids` that are not published cases (retracted, merged away, deleted or
    never published). One query, none for no ids."""
    if not case_ids:
        return set()
    published = Case.objects.published().filter(id__in=ids_subquery(sorted(case_ids)))
    return set(case_ids) - set(published.order_by().values_list("id", flat=True))


def _refilled(pool: Pool, j: int, row: np.ndarray, kept: Nearest) -> Nearest:
    """The nearest of pooled case `j` from its `row` of cosines over the pool, with those of
    its `kept` stored nearest that the pool lacks (a candidate corpus holds only some of the
    library; over every published case the pool holds them all and this is the exact value).
    `kept` names published cases only (`_update` leaves the others out)."""
    found = pool.nearest(row, (j,))
    outside = [s for s in kept if s[0] not in pool.index]
    return _best([*found, *outside])


def store(values: Mapping[str, Nearest | None]) -> int:
    """Write these cases' nearest and hubness to their stored profiles (one UPDATE statement
    run per case, executemany). Returns the cases written."""
    if not values:
        return 0
    field = CaseProfile._meta.get_field("hub_nearest")
    table = connection.ops.quote_name(CaseProfile._meta.db_table)
    rows = [
        (
            None if found is None else field.get_db_prep_value([[o, c] for o, c in found], connection),
            mean_cosine(found),
            case_id,
        )
        for case_id, found in sorted(values.items())
    ]
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET hub_nearest = %s, hubness = %s WHERE case_id = %s", rows)
    return len(rows)


def stored_nearest(case_ids: Collection[str]) -> set[str]:
    """The cases the stored nearest of `case_ids` name (one query)."""
    rows = CaseProfile.objects.filter(case_id__in=sorted(case_ids), hub_nearest__isnull=False)
    return {other for nearest in rows.values_list("hub_nearest", flat=True) for other, _ in nearest or []}


# Up to this many ids `holders` asks for the lists naming one by a LIKE per id, each a scan
# of every list (100,000 synthetic lists: SQLite 24 CPU ms for one id, 160 for 10;
# PostgreSQL 150 ms for one, 670 for 8, on a loaded machine); for more, reading every list
# once and looking in Python costs less (SQLite 180 CPU ms, PostgreSQL 240 client CPU ms,
# whatever the ids).
HOLDERS_BY_TEXT = 8


def holders(case_ids: Collection[str]) -> set[str]:
    """The cases whose stored nearest name one of `case_ids`. Up to `HOLDERS_BY_TEXT` ids, by
    the JSON text of the lists holding an id in quotes (a LIKE, alike on SQLite and
    PostgreSQL, where a JSON containment lookup is PostgreSQL's only; case ids are `IL-` and
    digits, case.schema.json, so nothing but a list's own ids matches); for more, every
    stored list read and looked into. One query, reading every stored list."""
    ids = set(case_ids)
    if not ids:
        return set()
    lists = CaseProfile.objects.annotate(hub_text=Cast("hub_nearest", TextField())).order_by()
    if len(ids) <= HOLDERS_BY_TEXT:
        naming = Q()
        for case_id in sorted(ids):
            naming |= Q(hub_text__contains=json.dumps(case_id))
        return set(lists.filter(naming).values_list("case_id", flat=True))
    rows = lists.filter(hub_nearest__isnull=False).values_list("case_id", "hub_text")
    return {owner for owner, text in rows if any(other in ids for other, _ in orjson.loads(text))}


def forget(case_ids: Iterable[str]) -> None:
    """Clear the stored hubness of these cases (no longer published, or no embedding)."""
    CaseProfile.objects.filter(case_id__in=list(case_ids)).update(hub_nearest=None, hubness=None)


def centre(profiles: Iterable[Profile]) -> float:
    """The mean hubness of `profiles` (every published one): the `centre` of the correction
    (0.0 when none has one)."""
    values = [h for p in profiles if (h := p.hubness) is not None]
    return sum(values) / len(values) if values else 0.0


def library_centre() -> float:
    """The mean stored hubness of the library (published cases with an embedding; the others
    store none), for a corpus that is not every published case. One query, answered from
    the `caseprofile_hubness` index."""
    found = CaseProfile.objects.filter(hubness__isnull=False).aggregate(centre=Avg("hubness"))["centre"]
    return float(found) if found is not None else 0.0


def adjusted(cosine: float, a: float | None, b: float | None, middle: float) -> float:
    """`cosine` of a pair less half of each case's hubness (`a`, `b`; a case without one
    counts as `middle`), plus `middle` (the centre)."""
    return cosine - ((middle if a is None else a) + (middle if b is None else b)) / 2 + middle
