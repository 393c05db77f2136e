"""Similar cases: shared vocabulary weighted by rarity plus text similarity, stored.

Score of a pair (symmetric, 0..1):
    score = VOCABULARY_WEIGHT * vocabulary + TEXT_WEIGHT * text + SEMANTIC_WEIGHT * semantic
- vocabulary: weighted Jaccard of the two cases' terms (topics, symptom tags, error codes,
  root-cause category, components, workload). A term weighs `facet weight * log(1 + N / n)`
  where N is the number of published cases and n those carrying it: rare terms count more
  than common ones, and a shared symptom or cause more than a shared topic (`FACET_WEIGHTS`;
  a facet not listed there, the error codes, 0.5).
- text: cosine of TF-IDF vectors over the whole case text but who and where (the account:
  title, symptoms, root cause, trigger and summary; and the rest: detection, remediation,
  action items, lessons, checks, scale tables, term names; `profiles.py`), stop words
  dropped, light stemming, over the words at least two cases hold: a word written in one
  case alone (a project's name, a host, a made-up label) is in no other case's vector, so it
  added nothing to any pair yet, as the rarest, weighed most in that case's norm and took
  places among its `VECTOR_WORDS` (precision@3 on the tuning judgements 0.757 -> 0.769);
- semantic: cosine of the two cases' mean passage embeddings (`semantic.py`), which finds
  cases told in other words, less half of each case's hubness and plus the library's mean
  hubness (`hubness.py`: a case near everybody, told in the library's common words, no
  longer takes places among the neighbours of cases told in specific ones), clipped to
  0..1 (0 when a case has no stored embedding).
Weights chosen on the tuning judgements (eval/similar.json).
The reasons kept with each neighbour: the shared terms by facet, the distinctive shared
words, and each weighted part (the parts add up to the score).

Why stored neighbours, and their cost. Each published case keeps its `NEIGHBOURS` best
neighbours in `CaseNeighbour`; `similar_cases` reads them with a fixed 3 queries whatever
the number of cases (one indexed lookup by case). Computing on read instead would cost
O(N) comparisons per page view; an ANN index would need a vector extension that this
deployment does not have (no pgvector on the target machines) and still not give reasons.

They are updated when cases are imported (`update_neighbours`, called by
`search.index.cases_written` from the import service, inside its transaction)
incrementally: with N published cases and m changed ones, the m changed profiles are
computed and stored and the other N read from their stored rows (`profiles.py`: O(N)
rows of word counts, no text to tokenise; an import hands over the read its duplicate
check made under the same write lock instead), every case's TF-IDF vector is built by array
operations (`word_vectors.py`; a case's dict of words only for the pairs scored one at a
time), the m changed cases are scored against every case by matrix
products (`pair_scores.py`: O(m·N) pairs in BLAS and sparse kernels, not Python), each
changed case keeps its best, and only the other lists a changed case can enter (its score
reaches their weakest kept neighbour) are merged and rewritten; only a case that loses a
neighbour without a replacement is recomputed in full (one more row of products).
When most cases changed (a first import) every case's row is computed, a block at a time,
or, when the import allows it, left with the passage embeddings to a step of its own
(`index.finish_pending`, `deferred.py`; `similar_cases` computes a pending list on the fly
meanwhile).
Either way, only the candidates near the top of each row are scored by `compare`, so the
stored scores are exactly the one-pair ones. Every pair is still looked at (O(N²) cheap
products): `make bench` measures how far that carries (bench/report.md).

Scores of untouched pairs keep the term rarities (and hubness) of the time they were
computed; the drift is small as cases are added, and `rebuild_neighbours()` (`manage.py
rebuild_search`) recomputes everything. A list a changed case enters is not merged across
times: its kept neighbours are scored again beside the new one (at most `NEIGHBOURS` more
pairs a list). Importing 22 fixture cases after the other 151 (6 random draws), the lists
then gave about the similar-case precision@3 a rebuild gives: tuning 0.789-0.797 (mean
0.791) and validation 0.814 every time (rebuild 0.793 and 0.814), where merging the stored
scores gave 0.773-0.797 (mean 0.788) and 0.804-0.814 (mean 0.809).

Above `settings.WORD_STATISTICS_FROM` published cases an increment reads O(changed) rows
instead of N profiles: the corpus is the changed cases, the cases whose lists hold one, and
their candidates from the search index (`_candidate_corpus`, `candidate_cases.py`), weighed
by the library's stored word statistics and term counts (`Rarities`); the pairs it scores
get the scores the exact path gives them, and a list rewritten keeps the stored rows of
neighbours outside the corpus. A case alike only through common words or its embeddings
alone can be missed (docs/scaling.md measures how often).
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from django.db import transaction
from django.db.models import Prefetch, Q

from incidents import store_cache
from incidents.bulk_sql import insert_rows
from incidents.collector import collector_paused
from incidents.id_lists import ids_subquery
from incidents.locking import serialize_case_writes
from incidents.models import Case, CaseTerm, Facet
from incidents.selectors.cases import related_case_ids

from . import candidate_cases, deferred, hubness, profiles, row_products, semantic, word_statistics
from .models import CaseNeighbour, CaseProfile
from .pair_scores import MARGIN, PairScores, candidates, sparse_rows
from .profiles import Profile, text_profile, word_counts
from .results import SimilarCase
from .row_products import SparseRows
from .word_vectors import word_vectors

if TYPE_CHECKING:
    from scipy import sparse

NEIGHBOURS = 10
# On the tuning judgements (eval/similar.json, 82 cases) the whole-text TF-IDF found the
# cases judged similar more often than the vocabulary and the embeddings: precision@3 0.703
# at 0.4 / 0.2 / 0.4, 0.762 here, 0.766 at 0.2 / 0.6 / 0.2 (a plateau; the round middle kept).
VOCABULARY_WEIGHT = 0.25
TEXT_WEIGHT = 0.5
SEMANTIC_WEIGHT = 0.25
# Hand-set: a shared symptom or cause says most of two cases being the same failure, a
# topic least. Weights fitted to the tuning judgements (`eval/calibrate.py --facets`: symptom
# and error code 1, topic 0.8, root cause 0.7, component 0.5, workload 0.3) lifted tuning
# precision@3 0.769 -> 0.781 but not the validation set's (0.794 both ways) and lowered the
# held-out one (0.784 -> 0.777): not kept (6 December).
FACET_WEIGHTS = {
    Facet.SYMPTOM: 1.0,
    Facet.ROOT_CAUSE: 1.0,
    Facet.COMPONENT: 0.8,
    Facet.TOPIC: 0.4,
    # Training versus inference was a topic (weight 0.4) before it became the workload.
    Facet.WORKLOAD: 0.4,
}
_WEIGHT_BY_FACET: dict[str, float] = {str(facet): weight for facet, weight in FACET_WEIGHTS.items()}
# The facets whose shared terms a neighbour's reasons name, in this order (every facet that
# weighs in the vocabulary part: a shared error code counted without being named before).
FACET_ORDER = (
    Facet.SYMPTOM,
    Facet.ERROR_CODE,
    Facet.ROOT_CAUSE,
    Facet.COMPONENT,
    Facet.TOPIC,
    Facet.WORKLOAD,
)
MIN_SCORE = 0.02
# A term on more than this share of the cases is not named as a reason.
GENERIC_SHARE = 0.5
VECTOR_WORDS = 200  # words kept per case's TF-IDF vector (precision@3 0.762; 0.754 with 100)
ACCOUNT_WORDS = 100  # the same for the accounts a duplicate check compares (`TextIndex`)


def term_weight(key: tuple[str, str], cases: float, holding: float) -> float:
    """What sharing term `key` (facet, slug) weighs when `holding` of `cases` cases carry it:
    its facet's weight times `log(1 + cases / holding)`."""
    return _WEIGHT_BY_FACET.get(key[0], 0.5) * math.log(1 + cases / holding)


@dataclass(frozen=True)
class Rarities:
    """How rare words and terms are in the library a partial corpus is taken from: N (the
    published cases) and document frequencies (`word_statistics.py`, term links)."""

    total: int
    words: Mapping[str, int]  # stemmed word -> cases holding it (account or whole text)
    terms: Mapping[tuple[str, str], int] = field(default_factory=dict)  # (facet, slug) -> cases


class _Corpus:
    """Term and word rarities over a set of profiles, and the pair score. `account_only`:
    word vectors of the accounts alone (`Profile.counts`, `ACCOUNT_WORDS`) and no term
    weights, for duplicate checks (`TextIndex`, which scores no pair); otherwise of the
    whole text (`counts` and `context`, `VECTOR_WORDS`)."""

    def __init__(
        self,
        profiles: list[Profile],
        *,
        account_only: bool = False,
        rarities: Rarities | None = None,
        centre: float | None = None,
    ):
        """`rarities`: the profiles are some of a larger library (`candidate_cases.py`), whose N
        and document frequencies weigh their words and terms. `centre`: the library's mean
        hubness (`hubness.py`), by default that of `profiles`' stored values."""
        with collector_paused():  # a dict or tuple per case and per (case, word): no cycles
            self.profiles = {p.id: p for p in profiles}
            self.total = rarities.total if rarities else max(len(profiles), 1)
            self.term_weight: dict[tuple[str, str], float] = {}
            if not account_only:  # a duplicate check compares accounts, not terms
                n = self.total
                term_df: Counter = Counter(key for p in profiles for key in p.terms)
                if rarities is not None:
                    term_df = Counter(
                        {key: max(rarities.terms.get(key, 0), df) for key, df in term_df.items()}
                    )
                self.term_weight = {key: term_weight(key, n, df) for key, df in term_df.items()}
                for p in profiles:
                    p.term_total = sum(self.term_weight[k] for k in p.terms)
            self.words = word_vectors(
                [(p.counts,) if account_only else (p.counts, p.context) for p in profiles],
                ACCOUNT_WORDS if account_only else VECTOR_WORDS,
                rarities.words if rarities else None,
                rarities.total if rarities else None,
                shared=not account_only,
            )
            self.row = {p.id: i for i, p in enumerate(profiles)}  # profile id -> row of `words`
        self.centre = hubness.centre(profiles) if centre is None else centre
        self._vectors: dict[str, dict[str, float]] = {}

    def vector(self, p: Profile) -> dict[str, float]:
        """`p`'s normalised TF-IDF vector, word -> weight (built on first use: most pairs are
        only ever scored by the matrix products of `pairs`)."""
        found = self._vectors.get(p.id)
        if found is None:
            found = self._vectors[p.id] = self.words.vector(self.row[p.id])
        return found

    def compare(self, a: Profile, b: Profile) -> tuple[float, float, float, float]:
        """(score, vocabulary part, text part, semantic part) of a pair, parts weighted."""
        # Called N times per changed case: set intersections (in C) keep it cheap.
        weight = self.term_weight
        # Lists, not generators, inside sum(): the same additions in the same order, faster.
        shared_weight = sum([weight.get(k, 0.0) for k in a.terms.keys() & b.terms.keys()])
        total = a.term_total + b.term_total - shared_weight
        vocabulary = shared_weight / total if total > 0 else 0.0
        av, bv = self.vector(a), self.vector(b)
        text = sum([av[w] * bv[w] for w in av.keys() & bv.keys()])
        v_part, t_part = VOCABULARY_WEIGHT * vocabulary, TEXT_WEIGHT * min(text, 1.0)
        s_part = 0.0
        if a.embedding is not None and b.embedding is not None:
            cosine = hubness.adjusted(float(a.embedding @ b.embedding), a.hubness, b.hubness, self.centre)
            s_part = SEMANTIC_WEIGHT * min(max(cosine, 0.0), 1.0)
        return v_part + t_part + s_part, v_part, t_part, s_part

    def distinctive(self, key: tuple[str, str]) -> bool:
        """Whether a shared term says something: not on most cases (`NVIDIA GPUs`, the
        `Training` topic) and not an unknown root cause."""
        return (
            self.term_weight.get(key, 0.0) >= term_weight(key, 1, GENERIC_SHARE) and "unknown" not in key[1]
        )

    def neighbour_row(self, a: Profile, b: Profile, rank: int, parts) -> tuple:
        """The `CaseNeighbour` row of `b` as `a`'s neighbour, in `NEIGHBOUR_COLUMNS` order (a
        tuple: rows are written by plain executemany, `_write_rows`)."""
        score, v_part, t_part, s_part = parts
        shared = [k for k in a.terms.keys() & b.terms.keys() if self.distinctive(k)]
        shared_terms: dict[str, list[str]] = {}
        for facet in FACET_ORDER:
            names = sorted(a.terms[k] for k in shared if k[0] == facet)
            if names:
                shared_terms[str(facet)] = names
        av, bv = self.vector(a), self.vector(b)
        # The 8 words adding most to the text part, ties by word (tuples sort in C; a key
        # function called for each shared word cost most of writing a row).
        strongest = sorted([(-av[w] * bv[w], w) for w in av.keys() & bv.keys()])[:8]
        shared_words = [a.surface.get(w, w) for _, w in strongest]
        return (
            a.id,
            b.id,
            rank,
            round(score, 4),
            round(v_part, 4),
            round(t_part, 4),
            round(s_part, 4),
            shared_terms,
            shared_words,
        )

    @functools.cached_property
    def pairs(self) -> PairScores:
        """The corpus as matrices for scoring many pairs at once (built on first use, O(N))."""
        self.ordered = sorted(self.profiles.values(), key=lambda p: p.id)
        return PairScores(self, self.ordered)

    def exact(self, a: Profile, others: Iterable[Profile]) -> list[tuple[str, tuple]]:
        """The best of `others` for `a` by `compare`, at most `NEIGHBOURS`, best first (ties
        by id)."""
        scored = [(b.id, self.compare(a, b)) for b in others]
        scored = [s for s in scored if s[1][0] >= MIN_SCORE]
        scored.sort(key=lambda s: (-s[1][0], s[0]))
        return scored[:NEIGHBOURS]

    def best(
        self, a: Profile, exclude: Iterable[str] = (), *, row: np.ndarray | None = None
    ) -> list[tuple[str, tuple]]:
        """`a`'s best neighbours: one row of matrix scores against every case, then the few
        candidates near the top scored exactly. `row`: that row when the caller computed it
        with others (`pairs.rows`); it is left as it is."""
        pairs = self.pairs
        row = pairs.rows([pairs.index[a.id]])[0] if row is None else row.copy()
        for other in exclude:
            if other in pairs.index:
                row[pairs.index[other]] = -np.inf
        return self.exact(a, [self.ordered[j] for j in candidates(row, NEIGHBOURS, MIN_SCORE)])

    def best_all(self) -> dict[str, list[tuple[str, tuple]]]:
        """Every case's best neighbours: every pair scored by matrix products a block of
        cases at a time (`pair_scores.py`), the candidates near each case's top scored exactly."""
        pairs = self.pairs
        result: dict[str, list[tuple[str, tuple]]] = {}
        for block in pairs.blocks():
            for i, row in zip(block, pairs.rows(block), strict=True):
                a = self.ordered[i]
                near_top = candidates(row, NEIGHBOURS, MIN_SCORE)
                result[a.id] = self.exact(a, [self.ordered[j] for j in near_top])
        return result


def _signature(ranked: list[tuple[str, tuple]]) -> list[tuple[str, float]]:
    return [(other, round(parts[0], 4)) for other, parts in ranked]


NEIGHBOUR_COLUMNS = (
    "case_id",
    "neighbour_id",
    "rank",
    "score",
    "vocabulary_score",
    "text_score",
    "semantic_score",
    "shared_terms",
    "shared_words",
)


def _write_rows(rows: Iterable[tuple]) -> int:
    # Plain executemany: ten rows a case made bulk_create's model objects a tenth of an import.
    return insert_rows(CaseNeighbour, NEIGHBOUR_COLUMNS, rows)


def _rows_for(corpus: _Corpus, owner: str, ranked: list[tuple[str, tuple]]) -> list[tuple]:
    """`owner`'s rows for `ranked` [(neighbour, score parts)]. A neighbour outside a partial
    corpus (`_candidate_corpus`) keeps the row it had: its parts then carry the stored
    shared terms and words (`_lists_that_may_change`)."""
    a = corpus.profiles[owner]
    rows = []
    for rank, (other, parts) in enumerate(ranked, start=1):
        if other in corpus.profiles:
            rows.append(corpus.neighbour_row(a, corpus.profiles[other], rank, parts[:4]))
        else:
            score, v_part, t_part, s_part, shared_terms, shared_words = parts
            rows.append((owner, other, rank, score, v_part, t_part, s_part, shared_terms, shared_words))
    return rows


@transaction.atomic
def rebuild_neighbours(*, refresh_profiles: bool = True, texts: Mapping[str, Profile] | None = None) -> int:
    """Recompute every published case's neighbours (O(N²) pairs). Returns rows written.
    Holds the case-write lock: an import committing meanwhile would miss its lists. Retires
    the cached reads (case pages show the lists).

    `refresh_profiles`: store every published case's profile again from its text first (a
    full rebuild, after cases changed outside the services). False for the step after an
    import, whose services stored the profiles of what they wrote (those stored before
    their passages were encoded get their mean embeddings here): reading and tokenising
    every case again was a fifth of that step (20,000 synthetic cases: 39.8 s, 32.6 s
    without). A case without a stored profile is still read from its text
    (`profiles.published`). `texts`: the profiles' text parts when the caller read the
    cases already (`profiles.refresh`)."""
    serialize_case_writes()
    store_cache.changed()
    if refresh_profiles:
        fresh = profiles.refresh(Case.objects.published().values_list("id", flat=True), texts)
    else:
        fresh = {}
        profiles.store_missing_embeddings()  # encoded since a bulk import stored them
    corpus = _with_hubness_of_every_case(_Corpus(profiles.published(fresh)))
    CaseNeighbour.objects.all().delete()
    written = _write_rows(
        row for owner, ranked in corpus.best_all().items() for row in _rows_for(corpus, owner, ranked)
    )
    deferred.done()
    # A case still without passage vectors (a bulk import committed while the step encoded,
    # or this ran without the step's encoding) stays pending: the next step encodes it and
    # scores its list again.
    deferred.mark(semantic.unencoded())
    return written


@transaction.atomic
def update_neighbours(
    case_ids: Iterable[str],
    texts: Mapping[str, Profile] | None = None,
    published_before: list[Profile] | None = None,
) -> None:
    """Bring stored neighbours up to date after `case_ids` were created or replaced.
    `texts`: their profiles' text parts when the caller has them (`profiles.refresh`).
    `published_before`: every published profile, read in this transaction under the write
    lock before `case_ids` were written, with no vocabulary term written since
    (`profiles.published(before=...)`).

    Incremental: see the module docstring for what is recomputed and its cost.
    """
    changed = set(case_ids)
    # Their nearest by embedding as stored before (the refresh clears them): over a large
    # library these cases are read too, as the likeliest to hold a changed case in theirs.
    nearest_before = hubness.stored_nearest(changed)
    refreshed = profiles.refresh(changed, texts)
    if deferred.pending():
        # A full rebuild is waiting and will include these; until then their lists are
        # computed on the fly, as every pending one is.
        CaseNeighbour.objects.filter(case_id__in=changed).delete()
        deferred.mark(changed)
        return
    if not _may_change_a_list(changed):
        return
    partial = word_statistics.in_use(len(changed), candidate_cases.KEPT)
    if partial:
        corpus = _candidate_corpus(changed, refreshed, nearest_before)
    else:
        corpus = _Corpus(profiles.published(refreshed, before=published_before))
    if not partial and len(changed & corpus.profiles.keys()) * 2 > len(corpus.profiles):
        # Most cases changed (a first import that did not leave this to its own step,
        # `deferred.py`): scoring each pair once is cheaper.
        corpus = _with_hubness_of_every_case(corpus)
        CaseNeighbour.objects.all().delete()
        _write_rows(
            row for owner, ranked in corpus.best_all().items() for row in _rows_for(corpus, owner, ranked)
        )
        return
    live_changed = [cid for cid in sorted(changed) if cid in corpus.profiles]
    # The hubness of the changed cases, and of those whose nearest they enter or leave, before
    # any pair is scored (`corpus.pairs` reads it).
    hubness.store(hubness.update(list(corpus.profiles.values()), live_changed, changed - set(live_changed)))
    corpus.centre = hubness.library_centre() if partial else hubness.centre(corpus.profiles.values())
    # Unpublished changed cases lose their lists and leave everybody else's.
    CaseNeighbour.objects.filter(case_id__in=changed).delete()
    new_rows: list[tuple] = []
    rewrite: list[str] = []
    pairs = corpus.pairs
    # The changed cases against every case: their own lists, and (the score is symmetric)
    # which other lists they may enter.
    changed_rows = pairs.rows([pairs.index[cid] for cid in live_changed]) if live_changed else None
    # Each changed case's list from its own row of `changed_rows`: computing the row again
    # alone was a tenth of an increment.
    for cid, row in zip(live_changed, changed_rows if changed_rows is not None else [], strict=True):
        new_rows.extend(_rows_for(corpus, cid, corpus.best(corpus.profiles[cid], row=row)))
    stored = _lists_that_may_change(corpus, changed, changed_rows, partial=partial)
    # The neighbours still published: the corpus's cases, or, as a partial corpus lacks some
    # of them, asked apart.
    alive: Collection[str] = corpus.profiles
    if partial:
        alive = set(ids_published(sorted({o for before in stored.values() for o, _ in before})))
    for owner, before in stored.items():
        profile = corpus.profiles[owner]
        kept = [(o, p) for o, p in before if o not in changed and o in alive]
        lost = len(before) - len(kept)
        # Only a changed case scoring near the weakest kept one can enter (stored scores
        # are rounded to 4 decimals, hence the extra 1e-4).
        floor = kept[NEIGHBOURS - 1][1][0] - 1e-4 - MARGIN if len(kept) >= NEIGHBOURS else MIN_SCORE - MARGIN
        column = changed_rows[:, pairs.index[owner]] if changed_rows is not None else np.empty(0)
        entering = [cid for cid, score in zip(live_changed, column, strict=True) if score >= floor]
        fresh = [(cid, corpus.compare(profile, corpus.profiles[cid])) for cid in entering]
        fresh = [f for f in fresh if f[1][0] >= MIN_SCORE]
        if not fresh and not lost:
            continue
        if fresh:
            # A changed case competes with the kept ones: they are scored again as it is, with
            # today's rarities and hubness, so that a list merges scores of one time (as
            # stored, the kept ones stood 0.0025 higher on average after 22 cases joined 151,
            # and the cases entering lost places a rebuild gives them). At most `NEIGHBOURS`
            # pairs a list; a neighbour outside a partial corpus keeps its stored score.
            kept = [
                (o, corpus.compare(profile, corpus.profiles[o]) if o in corpus.profiles else p)
                for o, p in kept
            ]
        merged = sorted(kept + fresh, key=lambda s: (-s[1][0], s[0]))
        if len(before) == NEIGHBOURS and len(merged) < NEIGHBOURS and lost:
            # Lost some: recompute this one in full. A partial corpus may lack some of the
            # kept ones (alike through common words or embeddings): they stay as stored.
            best = corpus.best(profile)
            if partial:
                outside = [k for k in kept if k[0] not in corpus.profiles]
                best = sorted(best + outside, key=lambda s: (-s[1][0], s[0]))
            merged = best
        merged = merged[:NEIGHBOURS]
        if _signature(merged) == _signature(before) or not (lost or any(o in changed for o, _ in merged)):
            continue  # no changed case entered, left or moved in this list
        rewrite.append(owner)
        new_rows.extend(_rows_for(corpus, owner, merged))
    CaseNeighbour.objects.filter(case_id__in=rewrite).delete()
    _write_rows(new_rows)


def _with_hubness_of_every_case(corpus: _Corpus) -> _Corpus:
    """`corpus` (every published profile, before any pair is scored) with every case's
    hubness computed (`hubness.every_case`, O(N²) products) and stored, and its centre;
    profiles no longer published lose theirs."""
    found = hubness.every_case(list(corpus.profiles.values()))
    for profile in corpus.profiles.values():
        profile.hub = found.get(profile.id)
    hubness.store({case_id: profile.hub for case_id, profile in corpus.profiles.items()})
    stale = CaseProfile.objects.filter(hubness__isnull=False).exclude(
        case_id__in=Case.objects.published().values("id")
    )
    hubness.forget(stale.values_list("case_id", flat=True))
    corpus.centre = hubness.centre(corpus.profiles.values())
    return corpus


def hubness_before_delete(case_ids: Iterable[str]) -> None:
    """Before `case_ids` are deleted: the stored hubness of the cases whose nearest hold one
    of them, computed again without them (`hubness.update`). Over a library below
    `settings.WORD_STATISTICS_FROM` every published profile is read (as an increment reads
    them); above it, the cases whose similar lists hold a deleted case or that its lists
    hold, their nearest by embedding, and the cases whose stored nearest name a deleted case
    (`hubness.holders`: read by the text of every list, as a case retracted before its
    deletion stores no hubness of its own, and lists outside the pool of its retraction may
    still name it). Nothing when no list names one, or when every list waits for a rebuild
    (`deferred.py`), which computes every case's."""
    gone = set(case_ids)
    if deferred.pending():
        return
    holding = hubness.holders(gone) - gone
    if not holding:
        return
    if not word_statistics.in_use(len(gone), candidate_cases.KEPT):
        pool = profiles.published()
    else:
        near = CaseNeighbour.objects.filter(Q(case_id__in=gone) | Q(neighbour_id__in=gone)).order_by()
        involved = {c for pair in near.values_list("case_id", "neighbour_id") for c in pair}
        stored = CaseProfile.objects.filter(case_id__in=sorted(gone | involved), hub_nearest__isnull=False)
        for hub in stored.values_list("hub_nearest", flat=True):
            involved.update(other for other, _ in hub or [])
        pool = profiles.published_among(gone | involved | holding)
    hubness.store({k: v for k, v in hubness.update(pool, (), gone).items() if k not in gone})


def _candidate_corpus(
    changed: set[str], refreshed: Mapping[str, Profile], nearest_before: Iterable[str] = ()
) -> _Corpus:
    """The part of a large library an increment scores (`candidate_cases.py`): the published
    changed cases and their candidates, the cases whose stored lists hold a changed case
    (with candidates of their own when that case is no longer published), and the stored
    neighbours of all these (what a list losing a neighbour is recomputed from, beside the
    candidates), and the nearest by embedding the changed cases stored before
    (`nearest_before`: likely to hold them in theirs, `hubness.py`), weighed by the whole
    library's rarities (`word_statistics.py`, term links). Reads O(changed + holders)
    profiles: at most `candidate_cases.KEPT` candidates a case searched, ten stored
    neighbours a case."""
    held = (
        CaseNeighbour.objects.filter(neighbour_id__in=changed)
        .order_by()
        .values_list("case_id", "neighbour_id")
    )
    holders: dict[str, set[str]] = {}
    for owner, neighbour in held:
        holders.setdefault(owner, set()).add(neighbour)
    live = profiles.published_among(changed, refreshed)
    # A list holding a case no longer published loses it for sure: its owner gets
    # candidates of its own to refill from.
    gone = changed - {p.id for p in live}
    losing = profiles.published_among(owner for owner, held_ids in holders.items() if held_ids & gone)
    searched = live + losing
    statistics = word_statistics.read(_words_of(searched))
    n = statistics.total
    # Counting a term's links reads all of them (O(N) for a topic most cases carry): each
    # term is counted once, here for the searched cases, below for the rest of the corpus.
    seed_terms = candidate_cases.term_frequencies(counted := {key for p in searched for key in p.terms})
    term_weights = {
        key: term_weight(key, n, df) for key, df in seed_terms.items() if 2 <= df < n * GENERIC_SHARE
    }
    found = candidate_cases.candidate_ids(searched, statistics, term_weights=term_weights)
    stored = CaseNeighbour.objects.filter(case_id__in=sorted(changed | holders.keys())).order_by()
    others = {c for ids in found.values() for c in ids} | holders.keys()
    others.update(stored.values_list("neighbour_id", flat=True))
    others.update(nearest_before)
    involved = searched + profiles.published_among(others - {p.id for p in searched})
    statistics = word_statistics.read(_words_of(involved))
    terms = {
        **seed_terms,
        **candidate_cases.term_frequencies({key for p in involved for key in p.terms} - counted),
    }
    return _Corpus(involved, rarities=Rarities(statistics.total, statistics.texts, terms))


def _words_of(some: list[Profile]) -> set[str]:
    """Every word of the profiles `some` (their accounts and context), as one set built in C:
    a Python step per word of 3,000 candidates was a tenth of an increment."""
    return set().union(*(p.counts for p in some), *(p.context for p in some))


def ids_published(case_ids: list[str]) -> list[str]:
    """Those of `case_ids` that are published cases. Queries: one per `profiles.BATCH` ids."""
    found: list[str] = []
    for at in range(0, len(case_ids), profiles.BATCH):
        batch = case_ids[at : at + profiles.BATCH]
        found.extend(Case.objects.published().filter(id__in=batch).order_by().values_list("id", flat=True))
    return found


def _may_change_a_list(changed: set[str]) -> bool:
    """Whether writing `changed` can change a stored list: one of them is published, or holds
    a list, or is in one. A draft saved (a proposal, an editor's work in progress) changes
    none, and is told in 2 queries instead of scoring every published case (O(N))."""
    if Case.objects.published().filter(id__in=changed).exists():
        return True
    return CaseNeighbour.objects.filter(Q(case_id__in=changed) | Q(neighbour_id__in=changed)).exists()


def _lists_that_may_change(
    corpus: _Corpus, changed: set[str], changed_rows: np.ndarray | None, *, partial: bool = False
) -> dict[str, list[tuple[str, tuple]]]:
    """The stored lists (owner -> [(neighbour, score parts)], best first, in id order) of
    the published cases outside `changed` that an increment may change: those holding a
    changed or no longer published case, and those whose weakest kept score (or
    `MIN_SCORE` for a list not full) a changed case reaches in `changed_rows`. Every other
    list stays as it is, so only these are read: reading all N lists (10 rows a case) was
    a tenth of an increment. Queries: 2, then 1 per `profiles.BATCH` lists read."""
    pairs = corpus.pairs
    floors = np.full(len(pairs.ids), MIN_SCORE - MARGIN)
    # Stored scores are rounded to 4 decimals, hence the extra 1e-4.
    # Without the model's ordering (by case date): that joined every row to its case.
    weakest = CaseNeighbour.objects.filter(rank=NEIGHBOURS).order_by()
    # A partial corpus (`_candidate_corpus`) reads the lists of its own cases only.
    reads = (
        [
            weakest.filter(case_id__in=ids_subquery(pairs.ids[at : at + profiles.BATCH]))
            for at in range(0, len(pairs.ids), profiles.BATCH)
        ]
        if partial
        else [weakest]
    )
    for rows in reads:
        for owner, score in rows.values_list("case_id", "score"):
            if owner in pairs.index:
                floors[pairs.index[owner]] = score - 1e-4 - MARGIN
    # The few unpublished ids as a subquery, so the neighbour index finds their rows: a
    # join to test every row's neighbour status read all 10 N rows (0.67 s at 20,000).
    # By the status index (a `!=` would read every case).
    others = [status for status in Case.Status.values if status != Case.Status.PUBLISHED]
    unpublished = Case.objects.filter(status__in=others).values("id")
    owners = set(
        CaseNeighbour.objects.filter(Q(neighbour_id__in=changed) | Q(neighbour_id__in=unpublished))
        .order_by()
        .values_list("case_id", flat=True)
    )
    if changed_rows is not None and len(changed_rows):
        owners.update(pairs.ids[i] for i in np.flatnonzero(changed_rows.max(axis=0) >= floors).tolist())
    wanted = sorted(o for o in owners if o in corpus.profiles and o not in changed)
    stored: dict[str, list[tuple[str, tuple]]] = {owner: [] for owner in wanted}
    for at in range(0, len(wanted), profiles.BATCH):
        rows = CaseNeighbour.objects.filter(case_id__in=wanted[at : at + profiles.BATCH]).order_by(
            "case_id", "rank"
        )
        # (score, vocabulary, text, semantic, shared terms, shared words) after the two ids.
        for owner, other, *parts in rows.values_list(*(c for c in NEIGHBOUR_COLUMNS if c != "rank")):
            stored[owner].append((other, tuple(parts)))
    return stored


# Labels on the score, from the tuning judgements (eval/similar.json): every neighbour
# scoring 0.45 or more was judged similar (29 of 29), and 3 in 4 of those from 0.34. Since
# the text part leaves out words on one case (higher text parts), of the 10 stored
# neighbours of the 83 judged cases: 35 of 36 from 0.45, 151 of 227 from 0.34 to 0.45
# (27 of 27 and 123 of 175 before): the labels still hold. (With the facet weights fitted to
# the judgements, not kept, see `FACET_WEIGHTS`: 42 of 44 from 0.45, 143 of 221 from 0.34.)
VERY_SIMILAR = 0.45
SIMILAR = 0.34
# Cosine of the mean passage embeddings from which "similar description" is a reason.
SIMILAR_TEXT = 0.6


def similarity_label(score: float) -> str:
    """ "very similar", "similar" or "related" (never a percentage: 28% read as a weak match)."""
    return "very similar" if score >= VERY_SIMILAR else "similar" if score >= SIMILAR else "related"


def _name_words(name: str) -> set[str]:
    """The words of a term's name, lower-cased and without a plural's `s` ("Training hangs"
    -> {"training", "hang"}), and without "and": to tell a name that says nothing more."""
    words = (w for w in re.split(r"[^0-9a-z]+", name.lower()) if w and w != "and")
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words}


def reasons_in_words(shared_terms: dict[str, list[str]], semantic_part: float) -> tuple[str, ...]:
    """Why two cases are alike, as a person says it: shared symptoms, error codes and
    components, the same kind of root cause (a category: "same root cause" claimed one cause
    for two different bugs), shared topics, similar descriptions. Generic terms and
    an unknown root cause are never reasons (they are left out when neighbours are computed).
    A shared topic whose name only repeats the names before it is left out: "Both: Silent
    data corruption" says what "same topic: silent data corruption" would say again (so do
    the topics `Training hangs` after the symptom `Training hang`, `GPU errors` after `ECC
    error` and `NVIDIA GPU`)."""
    reasons = []
    both = [
        *shared_terms.get(str(Facet.SYMPTOM), []),
        *shared_terms.get(str(Facet.ERROR_CODE), []),
        *shared_terms.get(str(Facet.COMPONENT), []),
    ]
    if both:
        reasons.append("Both: " + ", ".join(both))
    causes = [c for c in shared_terms.get(str(Facet.ROOT_CAUSE), []) if "unknown" not in c.lower()]
    if causes:
        reasons.append("same kind of root cause: " + causes[0].lower())
    said = set().union(*(_name_words(name) for name in [*both, *causes[:1]]))
    topics = [t for t in shared_terms.get(str(Facet.TOPIC), []) if not _name_words(t) <= said]
    if topics:
        reasons.append("same topic: " + ", ".join(t.lower() for t in topics))
    if semantic_part >= SEMANTIC_WEIGHT * SIMILAR_TEXT:
        reasons.append("similar description")
    if reasons:
        reasons[0] = reasons[0][0].upper() + reasons[0][1:]
    return tuple(reasons)


class TextIndex:
    """Accounts compared, for text that is not a stored case yet (duplicate checks): built
    once from every published profile's account (2 queries, O(N)), then `matches` compares
    one text with every case by a sparse product without further queries. Similar cases
    compare the whole text instead (`_Corpus` without `account_only`).

    Holds only what `matches` reads: the accounts' vectors as CSR arrays (12 bytes per
    kept word of a case: about 15 MB at 20,000 synthetic cases), the case ids of its rows
    and each word's column and idf. The profiles it was built from are let go, so that a
    server can keep one per store generation (`current_text_index`): with them it held
    198 MiB at 20,000 cases, and building it anew took 2 s a request."""

    def __init__(
        self,
        published: list[Profile] | None = None,
        *,
        rarities: Rarities | None = None,
    ) -> None:
        """`published`: every published profile, when the caller read them already; or, with
        `rarities` (the library's N and account word frequencies), only some of them: the
        candidates of the texts to match (`for_texts`)."""
        corpus = _Corpus(
            published if published is not None else profiles.published(account_only=True),
            account_only=True,
            rarities=rarities,
        )
        # A partial index weighs a probe's words by the library's frequencies, not by the
        # columns of its few cases (a word of the probe none of them holds still counts in
        # its norm, as it does against the whole library).
        self.rarities = rarities
        words = corpus.words
        self.ids: list[str] = list(corpus.profiles)  # row -> case id, as `vectors`
        self.row: dict[str, int] = corpus.row
        self.words: list[str] = words.words  # column -> word
        self.column_of: dict[str, int] = words.column_of
        self.idf: np.ndarray = words.idf
        # word -> its idf as a Python float (a numpy scalar read per word of every probe was
        # a third of probing an import's documents); the same values.
        self.idf_of: dict[str, float] = dict(zip(self.words, self.idf.tolist(), strict=True))
        # `words` columns in each row's strongest-first order.
        self.vectors = SparseRows(words.starts, words.columns, words.values, max(len(words.words), 1))

    @classmethod
    def for_texts(cls, texts: list[str]) -> TextIndex:
        """An index of the published cases that may match one of `texts` (`candidate_cases.py`),
        for a library too large to read every account: `matches` then scores exactly what
        the full index scores for those cases, and misses a case sharing none of a text's
        strongest words. Reads O(texts) rows: at most `candidate_cases.KEPT` profiles a text."""
        probes = [text_profile(f"text-{i}", {}, [text]) for i, text in enumerate(texts)]
        statistics = word_statistics.read(w for p in probes for w in p.counts)
        found = candidate_cases.candidate_ids(probes, statistics, account_only=True, counted=False)
        chosen = profiles.published_among({c for ids in found.values() for c in ids}, account_only=True)
        statistics = word_statistics.read(set().union(*(p.counts for p in (*chosen, *probes))))
        return cls(chosen, rarities=Rarities(statistics.total, statistics.accounts))

    def vector(self, row: int) -> dict[str, float]:
        """The account vector of case `row` (word -> weight), as `_Corpus.vector` gives it."""
        lo, hi = self.vectors.starts[row], self.vectors.starts[row + 1]
        words = self.words
        return dict(
            zip(
                [words[c] for c in self.vectors.columns[lo:hi].tolist()],
                self.vectors.values[lo:hi].tolist(),
                strict=True,
            )
        )

    @functools.cached_property
    def matrix(self) -> sparse.csr_matrix:
        """`vectors` as a scipy CSR matrix, for blocks of texts too large for `row_products`
        (built on first use: a duplicate check of a few texts never needs it)."""
        from scipy import sparse  # here, not at the top: see `pair_scores`' imports

        v = self.vectors
        return sparse.csr_matrix((v.values, v.columns.copy(), v.starts), shape=(len(v), v.width))

    def matches(
        self, text: str, *, exclude: Iterable[str] = (), min_score: float = 0.0, limit: int = 5
    ) -> list[tuple[str, float]]:
        """Published cases whose text is most like `text`, best first, as (id, score 0..1):
        the cosine of TF-IDF vectors over title, symptoms, root cause, trigger and summary
        (the accounts, `profiles.TEXT_FIELDS`)."""
        return self.matches_many([text], excludes=[set(exclude)], min_score=min_score, limit=limit)[0]

    def matches_many(
        self, texts: list[str], *, excludes: list[set[str]], min_score: float, limit: int = 5
    ) -> list[list[tuple[str, float]]]:
        """`matches` of each text (with its own `excludes`): a sparse product of the texts'
        vectors with every case's picks the cases near `min_score` (float sums in another
        order differ by far less than `MARGIN`; a case sharing no word scores 0 and is never
        a match), which are then scored one pair at a time, rounding included. Cost: one
        sparse product per block of texts (`row_products`, or scipy for a large block), not
        a Python loop over every case per text."""
        probes = [self._probe(text) for text in texts]
        results: list[list[tuple[str, float]]] = []
        step = max(1, 2_000_000 // max(len(self.ids), 1))
        for start in range(0, len(probes), step):
            block = probes[start : start + step]
            scores = row_products.products(
                self.vectors, row_products.from_mappings(block, self.column_of, self.vectors.width)
            )
            if scores is None:
                scores = (sparse_rows(block, self.column_of) @ self.matrix.T).toarray()
            for row, probe in enumerate(block):
                skip = excludes[start + row]
                # The cases sharing a word with the text: every weight is positive.
                columns = np.flatnonzero(scores[row] > 0)
                values = scores[row, columns]
                skipped = [self.row[case_id] for case_id in skip if case_id in self.row]
                values[np.isin(columns, skipped)] = -np.inf
                # Only cases near the limit-th best can be among the best once scored one pair
                # at a time and rounded to 4 decimals (near-copies of a text can be thousands).
                near = candidates(values, limit, min_score, slack=1e-4 + MARGIN)
                results.append(self._ranked(probe, columns[near].tolist(), skip, min_score, limit))
        return results

    def _probe(self, text: str) -> dict[str, float]:
        if self.rarities is not None:
            total, frequencies = self.rarities.total, self.rarities.words
            weights = {
                w: (1 + math.log(c)) * math.log(total / frequencies[w])
                for w, c in word_counts(text).items()
                if 0 < frequencies.get(w, 0) < total
            }
        else:
            idf_of = self.idf_of
            weights = {w: (1 + math.log(c)) * idf_of[w] for w, c in word_counts(text).items() if w in idf_of}
        weights = dict(sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:ACCOUNT_WORDS])
        norm = math.sqrt(sum(v * v for v in weights.values())) or 1.0
        return {w: v / norm for w, v in weights.items()}

    def _ranked(
        self, probe: dict[str, float], rows: Iterable[int], skip: set[str], min_score: float, limit: int
    ) -> list[tuple[str, float]]:
        scored = []
        for row in rows:
            case_id = self.ids[row]
            if case_id in skip:
                continue
            ov = self.vector(row)
            score = min(sum(probe[w] * ov[w] for w in probe.keys() & ov.keys()), 1.0)
            if score >= min_score and score > 0:
                scored.append((case_id, round(score, 4)))
        scored.sort(key=lambda s: (-s[1], s[0]))
        return scored[:limit]


def current_text_index() -> TextIndex:
    """The `TextIndex` of the store as it is, kept in this process until a case or term is
    written (`store_cache.local`): a form checking for duplicates while someone types
    (`/api/proposals/lookalikes`) would otherwise read every published account per
    request (2 s at 20,000 synthetic cases, O(N))."""
    return store_cache.local("text-index", TextIndex)


def similar_cases(case: Case, *, limit: int = 5, without_hand_linked: bool = False) -> list[SimilarCase]:
    """Published cases most similar to `case`, best first, each with its reasons.

    Reads the stored neighbours (see the module docstring): a fixed 2 queries (neighbour
    rows with their cases and root causes, their terms), and a third for the case's
    hand-made links unless `case` was read with `with_document` (`selectors.related_case_ids`).
    `limit` is capped at `NEIGHBOURS`. Hand-linked related cases are not added here (the
    case page lists them apart); one that is also computed has `hand_linked=True`, or with
    `without_hand_linked` is left out and the next computed neighbour takes its place (what
    the case page, `/api/cases/{id}/similar` and MCP `similar_incidents` show, so that a case
    an editor linked is listed once, under related). Raises nothing for a case without
    neighbours: the list is empty. A case whose list is pending after a first bulk import
    (`deferred.py`) gets it computed on the fly: one more query, and the corpus of every
    profile once per store generation in each process.
    """
    shown = max(0, min(limit, NEIGHBOURS))
    rows = list(
        CaseNeighbour.objects.filter(case_id=case.id, neighbour__status=Case.Status.PUBLISHED)
        .select_related("neighbour__root_cause_category")
        .prefetch_related(
            Prefetch(
                "neighbour__term_links",
                queryset=CaseTerm.objects.select_related("term").order_by("position"),
            )
        )
        .order_by("rank")[: NEIGHBOURS if without_hand_linked else shown]
    )
    if not rows:
        if not deferred.pending_for(case.id):
            return []
        rows = _on_the_fly(case)[: NEIGHBOURS if without_hand_linked else shown]
    # The hand-linked cases as readers are shown them (a link to a merged case is its kept
    # case), by the rule the case page and `similar_incidents` list them with.
    linked = related_case_ids(case)
    if without_hand_linked:
        rows = [row for row in rows if row.neighbour_id not in linked][:shown]
    return [
        SimilarCase(
            label=similarity_label(row.score),
            reasons=reasons_in_words(row.shared_terms, row.semantic_score),
            case=row.neighbour,
            score=row.score,
            shared_terms=row.shared_terms,
            score_parts={
                "vocabulary": row.vocabulary_score,
                "text": row.text_score,
                "semantic": row.semantic_score,
            },
            shared_words=tuple(row.shared_words),
            hand_linked=row.neighbour_id in linked,
        )
        for row in rows
    ]


def _on_the_fly(case: Case) -> list[CaseNeighbour]:
    """`case`'s neighbour rows (unsaved, best first) while its stored list is pending
    (`deferred.py`): scored against every published profile as `rebuild_neighbours` will
    score it, with the hubness the profiles store (none right after migration 0028 until
    the rebuild: then every case counts at the centre and the semantic part is the plain
    cosine). The corpus is built once per store generation in each process (O(N) rows)."""
    corpus = store_cache.local("similarity-corpus", lambda: _Corpus(profiles.published()))
    profile = corpus.profiles.get(case.id)
    if profile is None:
        return []
    found = _rows_for(corpus, case.id, corpus.best(profile))
    cases = (
        Case.objects.filter(id__in=[row[1] for row in found], status=Case.Status.PUBLISHED)
        .select_related("root_cause_category")
        .prefetch_related(
            Prefetch("term_links", queryset=CaseTerm.objects.select_related("term").order_by("position"))
        )
        .in_bulk()
    )
    rows = []
    for row in found:
        values = dict(zip(NEIGHBOUR_COLUMNS, row, strict=True))
        neighbour = cases.get(values.pop("neighbour_id"))
        if neighbour is not None:
            rows.append(CaseNeighbour(**values, neighbour=neighbour))
    return rows
