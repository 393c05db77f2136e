"""Per-case profiles for similar cases: terms, stemmed word counts, mean passage embedding.

A profile is what `similarity._Corpus` scores. Its text part and its embedding (the mean
of the case's passage vectors) are stored in `CaseProfile` when a case is written
(`refresh`), so that scoring m new cases against N stored ones reads N small rows instead
of tokenising N texts and loading N × 5 passage vectors (about 160 MB at 100,000 cases).
Terms are read from the term rows every time (they are small and a vocabulary edit may
rename them; the context counts hold the term names as words too, and a vocabulary edit
rewrites them through `index.cases_written`), except by an import that read every profile
under the write lock and writes no term (`published(before=...)`). The text part is kept
in two counts:

- the account (`counts`): title, symptoms, root cause, trigger and summary, what a
  duplicate check compares a new text with (`similarity.TextIndex`);
- the rest of what the case says (`context`): how it was detected and fixed, action items,
  lessons, checks, scale tables and the names of its terms. Similar cases read both: on
  the tuning judgements (eval/similar.json), at the weights of `similarity.py`, the whole
  text found the cases judged similar more often than the account alone (precision@3 0.722
  -> 0.762; README "Evaluation" has the held-out figures). Who
  reported a case, on which cluster and chip, and how many users it hit are left out:
  they are not the failure (as `ALIAS_FACETS` for terms).

A published case without a stored profile (one written before profiles were stored) gets
one computed from its text on the fly, so reads stay right before the first refresh.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np
import orjson
from django.db import connection
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast

from incidents.bulk_sql import insert_rows
from incidents.collector import collector_paused
from incidents.document_model import case_model
from incidents.id_lists import ids_in, ids_subquery
from incidents.models import ALIAS_FACETS, Case, CaseQuerySet, CaseTerm, Term

from . import encoder, word_statistics
from .models import CaseEmbedding, CaseProfile
from .semantic import Vectors
from .text import STOP_WORDS, WORD_RE, cases_for_index, stem

# A case's account of its failure: the document's fields (JSON paths) and the model's
# fields holding them (the path with `_` for `.`).
ACCOUNT_PATHS = ("title", "symptoms.description", "root_cause.description", "root_cause.trigger", "summary")
TEXT_FIELDS = tuple(path.replace(".", "_") for path in ACCOUNT_PATHS)
# The document fields that say who and where, not what failed.
NOT_THE_FAILURE = (
    "organization",
    "environment.cluster",
    "environment.accelerator",
    "facts.scope",
    "facts.users_affected",
)
# Profiles refreshed per round of queries: bounds the texts and vectors held at once.
BATCH = 2000


@dataclass
class Profile:
    """What similarity reads of one case."""

    id: str
    terms: dict[tuple[str, str], str]  # (facet, slug) -> name
    counts: Mapping[str, int]  # stemmed word -> occurrences in the account (`TEXT_FIELDS`)
    surface: dict[str, str]  # stemmed word -> the word as first written (when it differs)
    context: Mapping[str, int] = field(default_factory=dict)  # the same over the rest of the case
    term_total: float = 0.0  # summed weights of its terms, set by `_Corpus`
    embedding: np.ndarray | None = None  # unit mean of its passage embeddings, if stored
    # Its nearest published cases by `embedding`, [(case id, cosine)] best first, as stored
    # (`hubness.py`); None when none is stored.
    hub: list[tuple[str, float]] | None = None

    @property
    def hubness(self) -> float | None:
        """The mean cosine of its `hub` (None without one, or with an empty one)."""
        return mean_cosine(self.hub)


def mean_cosine(nearest: list[tuple[str, float]] | None) -> float | None:
    """The hubness of a case whose nearest are `nearest`, [(case id, cosine)]: their mean
    cosine (None for none)."""
    return sum(c for _, c in nearest) / len(nearest) if nearest else None


def text_words(text: str) -> list[tuple[str, str]]:
    """(stem, word) pairs of the words that count: no stop words, numbers or single letters."""
    return [pair for w in WORD_RE.findall(text.lower()) if (pair := _counted(w)) is not None]


@functools.lru_cache(maxsize=65536)
def _counted(word: str) -> tuple[str, str] | None:
    """`word`'s (stem, word) pair, None for a word that does not count. Decided once per
    distinct word: a case's text repeats most of its words, and the tests and the stem of
    every occurrence were most of tokenising an import."""
    if word in STOP_WORDS or len(word) < 2 or word.isdigit():
        return None
    return stem(word), word


def _stem_counts(text: str, surface: dict[str, str]) -> Counter[str]:
    """Stemmed word -> occurrences in `text`, stems in the order they first occur (as
    counting `text_words` gives them); each stem's first spelling is added to `surface`
    unless it holds one. The words are counted in C first and each distinct word stemmed
    once: a case's text repeats most of its words, and a Python step per occurrence was
    most of tokenising an import."""
    counts: Counter[str] = Counter()
    for word, n in Counter(WORD_RE.findall(text.lower())).items():
        pair = _counted(word)
        if pair is not None:
            stemmed = pair[0]
            counts[stemmed] = counts.get(stemmed, 0) + n
            if stemmed not in surface:
                surface[stemmed] = word
    return counts


# Within `accounts_kept()`: text -> (`word_counts(text)`, the first spellings it found).
_kept_accounts: ContextVar[dict[str, tuple[Counter[str], dict[str, str]]] | None] = ContextVar(
    "kept_accounts", default=None
)


@contextmanager
def accounts_kept() -> Iterator[None]:
    """Within this block what `word_counts` counts is kept, and the profile of an account of
    the very same text (`text_profile`) takes it instead of counting it again: an import
    probes its new documents' accounts for duplicates, then profiles the same texts (a
    third of its tokenising). Each kept text is taken once; the rest goes with the block."""
    token = _kept_accounts.set({})
    try:
        yield
    finally:
        _kept_accounts.reset(token)


def word_counts(text: str) -> Counter[str]:
    """Stemmed word -> occurrences in `text`: `text_profile([text]).counts` without the rest
    of a profile (a duplicate check probes every new document's account with it). Not to
    be changed: within `accounts_kept()` a profile may take the same counts."""
    surface: dict[str, str] = {}
    counts = _stem_counts(text, surface)
    kept = _kept_accounts.get()
    if kept is not None:
        kept[text] = (counts, surface)
    return counts


def text_profile(
    case_id: str,
    terms: dict[tuple[str, str], str],
    texts: Iterable[str | None],
    context: Iterable[str | None] = (),
) -> Profile:
    """The profile of the account `texts` and the `context` texts (no embedding). Only
    spellings that differ from their stem are kept in `surface` (readers fall back to the
    stem)."""
    surface: dict[str, str] = {}
    account = "\n".join(t for t in texts if t)
    kept = _kept_accounts.get()
    counted = kept.pop(account, None) if kept is not None else None
    if counted is None:
        counts = _stem_counts(account, surface)
    else:
        # Counted from the same text into an empty `surface`, as here.
        counts, first = counted
        surface.update(first)
    more = _stem_counts("\n".join(t for t in context if t), surface)
    return Profile(
        id=case_id,
        terms=terms,
        counts=counts,
        surface={s: w for s, w in surface.items() if s != w},
        context=more,
    )


def context_texts(case: Case) -> list[str]:
    """The text of `case` beyond its account, field by field (`ACCOUNT_PATHS` and
    `NOT_THE_FAILURE` left out), from a case read by `text.cases_for_index` (no queries)."""
    columns = case_model().index_texts(case, leave_out=(*ACCOUNT_PATHS, *NOT_THE_FAILURE))
    return [str(part) for parts in columns.values() for part in parts if part]


def _case_profile(case: Case) -> Profile:
    return text_profile(case.id, {}, [getattr(case, name) for name in TEXT_FIELDS], context_texts(case))


def text_profiles(cases: Iterable[Case]) -> dict[str, Profile]:
    """Case id -> the text part of its profile (counts, context and surface forms; no terms,
    no embedding), from cases read by `text.cases_for_index` (no queries). For a writer that
    reads the cases anyway (`index.cases_written`), to hand to `refresh`."""
    return {case.id: _case_profile(case) for case in cases}


def refresh(case_ids: Iterable[str], texts: Mapping[str, Profile] | None = None) -> dict[str, Profile]:
    """Compute and store the profiles of `case_ids` (any status) from their text and stored
    passage vectors; returns them by id (terms filled for published cases only, as
    `published` reads them). `texts`: the text parts of these cases already computed
    (`text_profiles`, every existing one of `case_ids`), so their text is not read again.
    Keeps the word statistics (`word_statistics.py`): what a case's previous row counted
    goes, its new words count when it is published.
    Queries: one for the vocabulary, then per `BATCH` cases up to 5 for the texts
    (`text.cases_for_index`; none with `texts`), one for the vectors, two for what the
    statistics counted and which are published, a delete and an insert; then
    `word_statistics.Tally.save`'s."""
    ids = sorted(set(case_ids))
    fresh: dict[str, Profile] = {}
    terms = Term.objects.in_bulk() if ids and texts is None else {}
    tally = word_statistics.Tally()
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        embeddings = _mean_embeddings(batch)
        rows = []
        if texts is None:
            computed = list(text_profiles(cases_for_index(batch, terms)).values())
        else:
            computed = [texts[case_id] for case_id in batch if case_id in texts]
        # The word statistics lose what the old rows counted and gain the published cases'.
        stored = CaseProfile.objects.filter(case_id__in=ids_in(batch), counted=True)
        for counts, context in word_statistics.counted_rows(stored).values():
            tally.add(counts, context, sign=-1)
        published = set(Case.objects.published().filter(id__in=ids_in(batch)).values_list("id", flat=True))
        for profile in computed:
            profile.embedding = embeddings.get(profile.id)
            fresh[profile.id] = profile
            vector = None if profile.embedding is None else profile.embedding.astype(np.float32).tobytes()
            counted = profile.id in published
            if counted:
                tally.add(profile.counts, profile.context)
            rows.append(
                (
                    profile.id,
                    dict(profile.counts),
                    dict(profile.context),
                    profile.surface,
                    vector,
                    False,
                    counted,
                )
            )
        CaseProfile.objects.filter(case_id__in=ids_in(batch)).delete()
        insert_rows(
            CaseProfile,
            ("case_id", "counts", "context_counts", "surface", "embedding", "neighbours_pending", "counted"),
            rows,
        )
    tally.save()
    return fresh


def published(
    fresh: dict[str, Profile] | None = None,
    *,
    before: list[Profile] | None = None,
    account_only: bool = False,
) -> list[Profile]:
    """Profiles of every published case, by id: `fresh` ones (from `refresh`) as given, the
    others from their stored rows (or their text, when none is stored, or when a stored row
    predates the context counts and `account_only` is False). `account_only`: leave
    `context` and `embedding` empty and the terms but the root cause too (a duplicate check
    compares accounts only, and skips reading them).
    Terms from the term rows, without organization and accelerator (who reported a case and
    on which chip are not the failure, see `ALIAS_FACETS`). Queries: 4 (root causes, term
    links, terms, stored rows; 2 with `account_only`), and with `fresh` one more plus one
    per `BATCH` other stored rows; 7 more when some profiles are missing (embeddings, texts
    and what they name).

    `before`: what this function returned earlier in the caller's transaction, once it held
    the write lock, with no vocabulary term written since. Its profiles are reused as they
    are, terms included (stored rows change only through `refresh`, whose profiles are
    `fresh`, and terms only through the vocabulary); only the `fresh` ones and cases
    published since are read (`_published_since`)."""
    fresh = fresh or {}
    cases = Case.objects.published()
    if before is not None:
        return _published_since(fresh, before, cases)
    with collector_paused():
        return _every_published(fresh, cases, account_only=account_only)


def _every_published(fresh: dict[str, Profile], cases: CaseQuerySet, *, account_only: bool) -> list[Profile]:
    """`published(fresh, account_only=...)` without `before`: every row read."""
    roots = _root_causes(cases)
    # A duplicate check compares accounts, not terms: the term links (half of this read at
    # 20,000 cases) are read for similar cases only.
    terms = {} if account_only else _terms_of(roots.keys())
    found: dict[str, Profile] = {cid: p for cid, p in fresh.items() if cid in roots}
    if found:
        # Stored rows only for the cases not just refreshed (decoding JSON is the cost here).
        wanted = list(CaseProfile.objects.filter(case__in=cases).values_list("case_id", flat=True))
        reads = _batches([case_id for case_id in wanted if case_id not in found])
    else:
        reads = [CaseProfile.objects.filter(case__in=cases)]
    found.update(_stored(reads, account_only=account_only))
    found.update(_from_text([case_id for case_id in roots if case_id not in found]))
    return [_with_terms(found[case_id], terms, roots[case_id]) for case_id in sorted(roots)]


def _published_since(fresh: dict[str, Profile], before: list[Profile], cases: CaseQuerySet) -> list[Profile]:
    """`published(fresh, before=before)`: the profiles of `before` still published, as they
    are; the others (`fresh`, or published since) with their terms read. Queries: 1 (the
    published ids), then per `BATCH` cases not in `before` 3 (root causes, term links,
    stored rows), and the terms once; none of the N rows `before` holds is read again (at
    20,000 cases the term links alone took 0.5 to 0.9 s)."""
    ids = sorted(cases.order_by().values_list("id", flat=True))
    kept = {p.id: p for p in before if p.id not in fresh}
    unread = [case_id for case_id in ids if case_id not in kept]
    found = {case_id: fresh[case_id] for case_id in unread if case_id in fresh}
    found.update(_stored(_batches([case_id for case_id in unread if case_id not in found])))
    found.update(_from_text([case_id for case_id in unread if case_id not in found]))
    roots: dict[str, tuple[str, str, str]] = {}
    terms: dict[str, dict[tuple[str, str], str]] = {}
    named = _term_names()
    for at in range(0, len(unread), BATCH):
        chunk = cases.filter(id__in=unread[at : at + BATCH])
        roots.update(_root_causes(chunk))
        terms.update(_terms_by_case(chunk, named))
    return [
        kept[case_id] if case_id in kept else _with_terms(found[case_id], terms, roots[case_id])
        for case_id in ids
    ]


def published_among(
    case_ids: Iterable[str], fresh: Mapping[str, Profile] | None = None, *, account_only: bool = False
) -> list[Profile]:
    """The profiles of the published cases among `case_ids`, by id, with their terms:
    `fresh` ones (from `refresh`) as given, the others from their stored rows (or their
    text). What an increment into a large library reads of its candidates (`candidate_cases.py`)
    instead of every published profile. `account_only`: as for `published` (a duplicate
    check's candidates: no term links, context or embedding read). Queries: per `BATCH` ids
    4 (published ids and root causes, term links, stored rows; the terms once; 2 with
    `account_only`), 7 more when some have no stored row."""
    fresh = fresh or {}
    ids = sorted(set(case_ids))
    roots: dict[str, tuple[str, str, str]] = {}
    terms: dict[str, dict[tuple[str, str], str]] = {}
    named = _term_names() if ids and not account_only else {}
    for at in range(0, len(ids), BATCH):
        chunk = Case.objects.published().filter(id__in=ids_subquery(ids[at : at + BATCH]))
        roots.update(_root_causes(chunk))
        if not account_only:
            terms.update(_terms_by_case(chunk, named))
    found = {case_id: fresh[case_id] for case_id in roots if case_id in fresh}
    unread = [case_id for case_id in sorted(roots) if case_id not in found]
    found.update(_stored(_batches(unread), account_only=account_only))
    found.update(_from_text([case_id for case_id in sorted(roots) if case_id not in found]))
    return [_with_terms(found[case_id], terms, roots[case_id]) for case_id in sorted(roots)]


def _batches(case_ids: list[str]) -> list[QuerySet[CaseProfile]]:
    """The stored profile rows of `case_ids`, `BATCH` ids a query."""
    return [
        CaseProfile.objects.filter(case_id__in=ids_subquery(case_ids[at : at + BATCH]))
        for at in range(0, len(case_ids), BATCH)
    ]


def _root_causes(cases: CaseQuerySet) -> dict[str, tuple[str, str, str]]:
    """Case id -> (facet, slug, name) of its root-cause category, for `cases` (one query)."""
    # Without the case's default ordering (by date), which sorted every row for nothing.
    rows = cases.order_by().values_list(
        "id", "root_cause_category__facet", "root_cause_category__slug", "root_cause_category__name"
    )
    return {case_id: (facet, slug, name) for case_id, facet, slug, name in rows}


def _stored(reads: Iterable[QuerySet[CaseProfile]], *, account_only: bool = False) -> dict[str, Profile]:
    """The profiles (without terms) of the stored rows `reads` select, one query each; a row
    stored before the context counts is left out unless `account_only` (it is computed
    from its text instead, `_from_text`)."""
    # The JSON columns read as text and decoded by orjson: Django's json.loads of the word
    # counts was most of reading them (20,000 stored rows: 2.4 s, 0.5 s this way).
    as_text = {
        f"{name}_text": Cast(name, TextField())
        for name in ("counts", "surface", *(() if account_only else ("context_counts",)))
    }
    if not account_only:
        as_text["hub_nearest_text"] = Cast("hub_nearest", TextField())
    columns = ("case_id", *(() if account_only else ("embedding",)), *as_text)
    found: dict[str, Profile] = {}
    for rows in reads:
        for case_id, *values in rows.annotate(**as_text).values_list(*columns):
            vector = None if account_only else values.pop(0)
            hub = None if account_only else values.pop()
            counts, surface, *context = values
            if context and context[0] is None:
                continue  # stored before the context counts: computed again from the text
            embedding = None if vector is None else np.frombuffer(bytes(vector), dtype=np.float32)
            found[case_id] = Profile(
                id=case_id,
                terms={},
                counts=orjson.loads(counts),
                surface=orjson.loads(surface),
                embedding=embedding,
                context=orjson.loads(context[0]) if context else {},
                hub=None if hub is None else [(other, cosine) for other, cosine in orjson.loads(hub)],
            )
    return found


def _from_text(case_ids: list[str]) -> dict[str, Profile]:
    """The profiles (without terms) of `case_ids` computed from their text and stored passage
    vectors, for cases without a usable stored row: none, or 7 queries."""
    if not case_ids:
        return {}
    embeddings = _mean_embeddings(case_ids)
    found = {}
    for case in cases_for_index(case_ids, Term.objects.in_bulk()):
        found[case.id] = _case_profile(case)
        found[case.id].embedding = embeddings.get(case.id)
    return found


def _with_terms(
    profile: Profile, terms: dict[str, dict[tuple[str, str], str]], root: tuple[str, str, str]
) -> Profile:
    """`profile` given its case's terms (from `terms`) and root-cause category `root`."""
    case_terms = terms.get(profile.id, {})
    facet, slug, name = root
    case_terms[(facet, slug)] = name
    profile.terms = case_terms
    return profile


def _term_names() -> dict[int, tuple[str, str, str]]:
    """Term id -> (facet, slug, name) of every term but `ALIAS_FACETS` (one query)."""
    rows = Term.objects.exclude(facet__in=ALIAS_FACETS).values_list("id", "facet", "slug", "name")
    return {term_id: (facet, slug, name) for term_id, facet, slug, name in rows}


def _terms_of(published_ids: Collection[str]) -> dict[str, dict[tuple[str, str], str]]:
    """`_terms_by_case` of every published case (`published_ids`): every term link read by
    one scan of the table and kept for those ids in Python, each case's in its order
    (`CaseTerm.position`, then the link's id). Two queries. Filtering by published case
    in SQL made SQLite look up each of the 100,000 ids in the link index (1.2 million
    links: 3.1 s, against 1.1 s for the scan)."""
    named = _term_names()
    wanted = set(published_ids)
    linked: dict[str, list[tuple[int, int, tuple[str, str, str]]]] = {}
    table = connection.ops.quote_name(CaseTerm._meta.db_table)
    # A plain cursor: the ORM's rows cost as much again as the scan.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT case_id, term_id, position, id FROM {table}")
        for case_id, term_id, position, link_id in cursor:
            term = named.get(term_id)
            if term is not None and case_id in wanted:
                linked.setdefault(case_id, []).append((position, link_id, term))
    terms: dict[str, dict[tuple[str, str], str]] = {}
    for case_id, links in linked.items():
        links.sort()  # by position, then link: mostly in order already, rows come as written
        terms[case_id] = {term[:2]: term[2] for _, _, term in links}
    return terms


def _terms_by_case(
    cases: CaseQuerySet, named: dict[int, tuple[str, str, str]] | None = None
) -> dict[str, dict[tuple[str, str], str]]:
    """Case id -> (facet, slug) -> name of the terms of `cases` but `ALIAS_FACETS`, each
    case's in its order (`CaseTerm.position`). Two queries: the term links as ids, and the
    terms (none when `named`, from `_term_names`, is given); reading each link's facet,
    slug and name through a join took twice as long (250,000 links at 20,000 cases: 0.75 s)."""
    named = _term_names() if named is None else named
    terms: dict[str, dict[tuple[str, str], str]] = {}
    links = CaseTerm.objects.filter(case__in=cases).order_by("position").values_list("case_id", "term_id")
    # The ORM's query on a plain cursor: its rows cost as much again as reading them (36,000
    # links of an increment's 3,000 candidates).
    sql, params = links.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    for case_id, term_id in rows:
        term = named.get(term_id)
        if term is not None:
            terms.setdefault(case_id, {})[term[:2]] = term[2]
    return terms


def store_missing_embeddings() -> int:
    """Give each stored profile without a mean embedding the one of its case's stored
    passage vectors, when the case has some: the profiles a first bulk import stored before
    the step after it encoded their passages (`semantic.encode_missing`). Returns profiles
    updated. Queries: one for their ids, then per `BATCH` the vectors and one UPDATE
    statement run for each profile (executemany)."""
    encoded = CaseEmbedding.objects.filter(model=encoder.MODEL_NAME).values("case_id")
    ids = sorted(
        CaseProfile.objects.filter(embedding__isnull=True, case_id__in=encoded).values_list(
            "case_id", flat=True
        )
    )
    table = CaseProfile._meta.db_table
    for start in range(0, len(ids), BATCH):
        means = _mean_embeddings(ids[start : start + BATCH])
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {table} SET embedding = %s WHERE case_id = %s",
                [(vector.astype(np.float32).tobytes(), case_id) for case_id, vector in means.items()],
            )
    return len(ids)


def _mean_embeddings(case_ids: list[str]) -> dict[str, np.ndarray]:
    """Case id -> unit mean of its stored passage vectors (`Vectors.case_matrix`, so the
    same float32 sums as reading every case at once), for those of `case_ids` that have them."""
    ids: list[str] = []
    owners, blocks = [], []
    rows = CaseEmbedding.objects.filter(case_id__in=ids_in(case_ids), model=encoder.MODEL_NAME).order_by(
        "case_id"
    )
    for case_id, count, data in rows.values_list("case_id", "passages", "vectors"):
        owners.append(np.full(count, len(ids), dtype=np.int64))
        blocks.append(np.frombuffer(bytes(data), dtype=np.float32).reshape(count, encoder.DIMENSIONS))
        ids.append(case_id)
    if not ids:
        return {}
    matrix = Vectors(ids, np.concatenate(owners), np.concatenate(blocks)).case_matrix()
    return dict(zip(ids, matrix, strict=True))
