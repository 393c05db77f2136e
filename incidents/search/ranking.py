"""Search, stage 2 of 3: the ranking (`rank`), which cases answer the plan, best first.

The database's full-text engine ranks the allowed cases lexically (`backends/`: SQLite
FTS5 bm25 or PostgreSQL ts_rank over a weighted tsvector). Cases tagged with a term the
query names count up to `1 + TERM_BOOST` times more per such term (rare terms more, see
`planning.vocabulary_terms`). Words combine like a web search engine's: a case matching
any of them is found, and the share of the query's words (or their synonyms) a case
matches multiplies its score, so cases matching every word come first.

That lexical ranking is fused with a semantic one (sentence embeddings of each case's
passages, `semantic.py`) by `fusion.fuse`, which gives every candidate a calibrated
probability and labels it strong / possible / weak: strong and possible ones are the
matches, weak ones the partial matches (the relevance floor), those most like the first
hit first (`fusion.by_likeness`; after a confident first hit, its stored similar cases a
little higher), led by that hit's nearest case (`nearest_to_first`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models.expressions import RawSQL

from incidents.id_lists import ids_subquery
from incidents.models import Case, CaseQuerySet, Facet

from .backends import Backend, RankedRow, get_backend
from .coordination import coordination
from .fusion import LIKENESS_DEPTH, STRONG, Candidate, by_likeness, fuse
from .kinds import names_only_a_kind
from .nearest_to_first import first_hit_neighbours, nearest_to_first
from .planning import SearchPlan, semantic_text
from .query import ParsedQuery
from .semantic import Vectors, load_vectors, process_vectors, query_vector
from .signatures import holding_a_signature

# Lexical candidates read per query; the fused ranking, total and facets cover these plus
# the semantic candidates.
LEXICAL_DEPTH = 1000
# The score of a case the query names by its id (`IL-0428`): a certainty, as an exact
# reference is (`hydration.REFERENCE_SCORE`).
NAMED_SCORE = 1.0


@dataclass(frozen=True)
class Ranking:
    """The ranked ids of a plan, with their scores (`Candidate.fused`) and labels, or for
    plans that rank nothing (browse, exclusions) the cases to list by date."""

    matches: list[Candidate] = field(default_factory=list)  # strong / possible, in the plan's order
    weak: list[Candidate] = field(default_factory=list)  # partial matches, best first
    listing: CaseQuerySet | None = None  # browse and exclusions: the cases, ordered by date
    rowids: dict[str, int] = field(default_factory=dict)  # SQLite: full-text rows read, for snippets
    # The lexical ranking stopped at this many rows (LEXICAL_DEPTH): more cases contain the
    # query's words than were ranked, so the total counts the matches among the best of them.
    capped_at: int | None = None
    # No case matched, but these retracted ones would have: (id, reason), best first
    # (`withdrawn.retracted_matches`; empty otherwise).
    retracted: tuple[tuple[str, str], ...] = ()


def rank(plan: SearchPlan) -> Ranking:
    """Rank `plan`: for a ranked plan the lexical ranking and the stored embeddings (two
    queries; one more to order the matches by date when the plan's sort is newest or
    oldest, one more when a strong case holding few of a pasted line's words must show it
    holds the line's failure signature, `signatures.holding_a_signature`; one more for the
    stored similar cases of a confident first hit when sorted by relevance and naming no
    case id, `nearest_to_first.first_hit_neighbours`); no query otherwise (a listing is a
    lazy queryset)."""
    if plan.kind == "browse":
        return Ranking(listing=_by_date(plan.cases, plan.sort))
    if plan.kind == "nothing" or plan.parsed is None:
        return Ranking()
    parsed, backend = plan.parsed, get_backend()
    if plan.kind == "exclusions":
        # Every allowed case without the excluded words, newest first unless asked otherwise.
        remaining = plan.cases.exclude(id__in=RawSQL(*backend.match_sql(parsed.excluded)))
        return Ranking(listing=_by_date(remaining, "oldest" if plan.sort == "oldest" else "newest"))

    allowed = plan.cases
    if parsed.excluded:
        allowed = plan.cases.exclude(id__in=RawSQL(*backend.match_sql(parsed.excluded)))
    # One row more than is ranked tells whether more cases contain the query's words.
    rows = lexical_rows(
        backend,
        parsed,
        plan.cases,
        whole=plan.whole,
        limit=LEXICAL_DEPTH + 1,
        library_size=plan.library_size,
        signatures=plan.signatures,
        codes=plan.codes,
    )
    capped_at = LEXICAL_DEPTH if len(rows) > LEXICAL_DEPTH else None
    rows = rows[:LEXICAL_DEPTH]
    vector = query_vector(semantic_text(plan.query))
    semantic, vectors = None, None
    if vector is not None:
        # Every search reads the same vectors: kept in this process per store generation
        # instead of read and decoded again. Filtered, the allowed cases' scores come from
        # the process's vectors (one query for their ids), rather than reading the allowed
        # cases' vectors again on every request (most of the store for a broad filter). In
        # a large store kept by the process the cases scored are the nearest by their
        # passages' sketches and the lexical ranking's (`Vectors.search_scores`); vectors
        # read for this request alone (the store cache off) are scored exactly.
        every = not parsed.excluded and plan.whole
        lexical = [row.case_id for row in rows]
        kept = settings.STORE_CACHE
        if every:
            vectors = process_vectors()
            semantic = vectors.search_scores(vector, also=lexical, two_stages=kept)
        elif kept:
            ids = set(allowed.order_by().values_list("id", flat=True))
            vectors = process_vectors()
            semantic = vectors.search_scores(vector, allowed=ids, also=lexical)
        else:
            vectors = load_vectors(allowed)
            semantic = vectors.search_scores(vector, also=lexical, two_stages=False)
    # An upstream record the query names (`NVIDIA/nccl#1116 hang`) says which failure: the
    # words beside it rank its citing cases, whatever kind they name.
    # So does a pasted line's exception name no case holds (`AsyncEngineDeadError: Background
    # loop has errored already.`): no case has seen that failure, whatever words it shares.
    kind_only = not plan.references and (
        names_only_a_kind(parsed, plan.library_size) or bool(plan.unseen_exceptions)
    )
    ranked = fuse(rows, semantic, strong=not kind_only)
    ranked = holding_a_signature(ranked, plan.signatures, backend)
    # Listed as like "the first hit", which it is only when the best match leads the list:
    # sorted by date, or after a case the query names by id, it would not.
    leads = plan.sort == "relevance" and not plan.case_ids
    neighbours = first_hit_neighbours(ranked, allowed) if leads else {}
    if vectors is not None:
        ranked = by_likeness(ranked, likeness_to_first(vectors, ranked), neighbours)
    if leads:
        ranked = nearest_to_first(ranked, neighbours)
    if plan.case_ids:
        # A case named by its id comes first, whatever its words: the reader asked for it.
        named = [
            Candidate(case_id, NAMED_SCORE, share=1.0, semantic=None, lexical_rank=None, confidence=STRONG)
            for case_id in plan.case_ids
        ]
        ranked = [*named, *(c for c in ranked if c.case_id not in plan.case_ids)]
    matches = [c for c in ranked if c.is_match]
    weak = ranked[len(matches) :]
    if plan.sort != "relevance" and matches:
        order = ("published", "id") if plan.sort == "oldest" else ("-published", "-id")
        dated = Case.objects.filter(id__in=ids_subquery([c.case_id for c in matches])).order_by(*order)
        by_id = {c.case_id: c for c in matches}
        matches = [by_id[i] for i in dated.values_list("id", flat=True)]
    rowids = {row.case_id: row.rowid for row in rows if row.rowid is not None}
    return Ranking(matches=matches, weak=weak, rowids=rowids, capped_at=capped_at)


def likeness_to_first(vectors: Vectors, ranked: list[Candidate]) -> dict[str, float]:
    """Case id -> semantic score against the first of `ranked` (its mean passage vector as
    the query), for the partial matches `fusion.by_likeness` reorders; empty when the first
    is no match. Scores only those cases' rows: no query."""
    if not ranked or not ranked[0].is_match:
        return {}
    weak = [c.case_id for c in ranked if not c.is_match][:LIKENESS_DEPTH]
    first = vectors.case_vector(ranked[0].case_id) if weak else None
    return vectors.scores_of(first, weak) if first is not None else {}


def lexical_rows(
    backend: Backend,
    parsed: ParsedQuery,
    cases: CaseQuerySet,
    *,
    whole: bool = False,
    limit: int | None = None,
    library_size: int = 0,
    signatures: Sequence[str] = (),
    codes: Sequence[str] = (),
) -> list[RankedRow]:
    """The lexical ranking of `cases` (best first, at most `limit`, by default
    `LEXICAL_DEPTH`): one query.
    `whole`: `cases` is every published case (no subquery of their ids is needed).
    `library_size`: the published cases, for a backend that ranks a large library in parts
    (`backends.SqliteBackend._split`).

    Several words are OR-ed and ranked by the share of them a case matches (coordination,
    `backends.Backend.rank`), each row carrying that share for the confidence label: a
    group typed twice counts once, and with `signatures` (`SearchPlan.signatures`, a pasted
    line's failure tokens) the groups holding one weigh as much as the others together
    (`coordination.coordination`), each repeat also holding the names of `codes` (the error
    codes such a line shows by their patterns, `SearchPlan.codes`).
    """
    candidates = None if whole else cases.order_by().values("id").query.sql_with_params()
    term_weights = {t.id: round(t.weight, 4) for t in parsed.terms if t.facet != Facet.ROOT_CAUSE}
    root_cause_weights = {t.id: round(t.weight, 4) for t in parsed.terms if t.facet == Facet.ROOT_CAUSE}
    expanded = parsed.literal_groups != parsed.groups
    parallel = expanded and len(parsed.literal_groups) == len(parsed.groups)
    coordinate, literal = coordination(
        parsed.groups, parsed.literal_groups if parallel else [], signatures, codes=codes
    )
    if expanded and not parallel:
        literal = parsed.literal_groups
    loose = ParsedQuery(
        groups=[[a for g in parsed.groups for a in g]],
        literal_groups=parsed.literal_groups,
        excluded=parsed.excluded,
        terms=parsed.terms,
    )
    return backend.rank(
        loose,
        candidates,
        coordinate=coordinate,
        literal=literal,
        term_weights=term_weights,
        root_cause_weights=root_cause_weights,
        sort="relevance",
        offset=0,
        limit=LEXICAL_DEPTH if limit is None else limit,
        library_size=library_size,
    )


def _by_date(cases: CaseQuerySet, sort: str) -> CaseQuerySet:
    return cases.order_by("published", "id") if sort == "oldest" else cases.newest_first()
