"""Log matching: pasted log text in, cases ranked by the failure signatures it contains.

`read_log` runs the steps, each in a module of its own:
1. the text as lines (`log_text`): decoded, cut at 1 MB, each distinct line read once;
2. the kind of job the log shows, training or inference (`log_job_kind`);
3. the evidence in its lines, found in one pass over the text with RE2 (linear time, see
   `patterns.py`; `log_findings`):
   - vocabulary terms (`log_terms`): every symptom tag and component by name and synonyms,
     never inside a source-file or host name, plus each term's own `patterns` (an error
     code by its patterns only); the error codes found are reported with their lines
     whether or not a case carries them (`LogReading.error_codes`);
   - failure tokens (`log_tokens`, `patterns.EXTRACTORS`): Xid codes, NCCL results, CUDA
     errors, exception types, NCCL/CUDA environment variables, errno and signal names,
     known phrases, what a program could not do (`Failed to initialize NVML`) and the
     message after `fatal:`, `error:` or `panic:`;
   - component versions next to the component's name (`log_versions`);
4. the cases sharing it, from the database (`log_candidates`), scored by facet, rarity and
   kind of token (`log_scores.Tally`); then a third, weaker kind of evidence, for the
   ranking only: the log's words that few cases contain (`log_rare_words`); the ranking
   score adds the job kind and the semantic score of the evidence lines
   (`log_scores.candidate_scores`), and the first hit's similar cases rank up after it;
5. each hit's label (`log_confidence.confidence`, never reading rare words, the job kind
   or the semantic score; for a log of a few lines, also the word search's label of each
   line, `log_as_words`; weak for a log showing nothing going wrong, `log_trouble`), and
   what it shows: the lines that produced its evidence (line
   number, line, term or token) and why it is listed (`log_hits`).
"""

from __future__ import annotations

from django.db.models import OuterRef, Q, Subquery

from incidents.models import Case, Facet
from incidents.selectors.stats import published_count
from incidents.selectors.vocabulary import terms_with_case_counts

from .backends import get_backend
from .gate import one_at_a_place
from .log_as_words import strong_as_words
from .log_candidates import add_common_evidence, look_up_terms, look_up_tokens
from .log_confidence import (
    POSSIBLE_SIGNATURE,
    Shared,
    confidence,
    head_labels,
    names_the_failure,
    specific_units,
)
from .log_findings import Findings, find_evidence
from .log_hits import HitExplainer
from .log_job_kind import JobKind, read_job_kind, workload_kinds
from .log_lines import MAX_LOG_BYTES
from .log_rare_words import rare_words
from .log_scores import (
    Tally,
    add_context_neighbours,
    candidate_scores,
    lift_like_the_first,
    ranked,
    semantic_scores,
)
from .log_text import Evidence, LogText, decode_log, read_text
from .log_thresholds import THRESHOLDS, Thresholds
from .log_tokens import signature_tokens
from .log_trouble import shows_trouble
from .log_versions import affected_by
from .models import CaseNeighbour
from .results import Confidence, LogHit, LogReading

# Imported from here by other modules, tests and eval/calibrate.py (which replaces
# `confidence` here to record what each hit's label is given: `_read_log` calls it by this
# module's name).
__all__ = [
    "MAX_LOG_BYTES",
    "THRESHOLDS",
    "Shared",
    "Thresholds",
    "confidence",
    "decode_log",
    "match_log",
    "names_the_failure",
    "read_log",
    "signature_tokens",
    "specific_units",
]

# The error codes of the log a case must carry for the word search's strong label of a
# line of a short log to make its hit strong (`log_as_words`): one line is one signature to
# `confidence`, and two vocabulary codes of that line (the NET/IB completion error and
# IBV_WC_RETRY_EXC_ERR of the error-12 line) are two tags of the failure that the case
# carries, where one code (`IBV_WC_RETRY_EXC_ERR` alone) or a watchdog line (one code, any
# hang's end) is what the README promises is not strong alone.
AS_WORDS_CODES = 2
# The facets whose terms a log is read for (an error code by its patterns only).
FACETS = [Facet.SYMPTOM, Facet.COMPONENT, Facet.ROOT_CAUSE, Facet.ERROR_CODE]


def match_log(text: str | bytes, *, limit: int = 10) -> list[LogHit]:
    """Rank published cases by the failure signatures found in pasted log `text`.

    The hits of `read_log` (see there); kept for callers that need only them.
    """
    return read_log(text, limit=limit).hits


def read_log(text: str | bytes, *, limit: int = 10) -> LogReading:
    """Rank published cases by the failure signatures found in pasted log `text`, and say
    what was read.

    `text` may be str or bytes, up to 1 MB (`MAX_LOG_BYTES`; longer text is cut), any
    encoding garbage tolerated. Signatures are error codes and tokens (`patterns.EXTRACTORS`),
    symptom and root-cause terms, and components found by their own patterns; a component
    found only by its name (`NCCL`, `PyTorch`, `CUDA`, `vLLM`) is context: it adds weight to
    a case that has a signature, never a hit by itself. The kind of job the log shows
    (training or inference, `log_job_kind.JobKind`) favours cases of that kind and
    disfavours cases only of the other, unless some line of the log names the other kind
    alone. In the ranking, code names and environment variables weigh
    `log_scores.NAMING_WEIGHT` of a failure token, and the code names and settings of one
    line count once (`log_scores.naming_part`); confidence reads their full weight.

    Returns at most `limit` hits, best first, each with its score, a confidence label
    (`confidence`), each matched line once with all the terms it matched and their spans
    (`LogHit.lines`, at most `log_hits.MAX_LINES_PER_HIT`) and the names shared with the
    log; plus how many lines were read, blank, repeated, and of the distinct others how many
    carried a signature, how many only context a hit shares (a component's name, a rare
    word, a version) and how many nothing (`LogReading`: those five add up to the lines
    read, and every line a hit lists is a signature or a context line). Never raises on odd
    input.

    Candidates sharing the same evidence are told apart by the semantic score of the log's
    evidence lines against each case's passages (`log_scores.SEMANTIC_FACTOR`,
    `log_scores.semantic_scores`). Then the candidates among the first hit's stored similar
    cases, and those of them sharing only a component's name with the log
    (`log_scores.add_context_neighbours`, labelled weak), gain its score times how alike the
    two are, staying after it (`log_scores.like_the_first`): other reports of the failure
    the log shows, told in other words. This reads no evidence, so no label changes.

    Time is linear in the size of the text (RE2), plus one encoding of at most
    `log_scores.SEMANTIC_CHARS` of its evidence lines. A component version the log prints
    next to the component's name (`NCCL version 2.19.3`) that falls inside a case's
    `affected` range is one more, weak, piece of evidence for that case
    (`log_scores.VERSION_WEIGHT`; one more query when the log prints such a version). Words
    of the log that few cases contain (`log_rare_words`) add to the ranking score, not to
    the confidence. Queries: a fixed 9 (terms with case counts, number of published cases,
    token look-up in the full-text index of published cases, the (case, term) pairs of the
    found terms, the rare words, the candidates' job-kind topics, the candidates' passage
    vectors, the hits' cases with the first hit's similar cases, and their terms; 8 when no
    word of the log qualifies for the rare-word look-up); 2 when nothing identifying is
    found. A log of at most `log_as_words.QUERY_LINES` distinct lines, none longer than a
    search query, is also searched line by line as words (a search's queries each): a hit
    sharing a signature and `AS_WORDS_CODES` error codes with it that the search of one of
    its lines calls strong is strong, at the head of the hits. Evidence in more than
    `log_candidates.CANDIDATE_CAP` cases is scored only for the cases the rarer evidence found
    and its own first ones by id: up to four more queries
    (the common terms' first cases, the common tokens' counts, none when kept for this store
    generation by `store_cache`, their candidates, the common terms' candidates), so the
    rows returned stay bounded as the store grows. At most `settings.SEARCH_CONCURRENCY` run
    at once in a process (`gate.py`).
    """
    with one_at_a_place():
        return _read_log(text, limit)


def _read_log(text: str | bytes, limit: int) -> LogReading:
    log = read_text(text)
    job = read_job_kind(log.scanned)
    findings = find_evidence(log, terms_with_case_counts(FACETS))
    if findings.empty:
        return _reading(log, job, findings, [])
    total = max(published_count(), 1)
    tally, word_score, word_reasons = _tally(log, findings, total)
    candidates = tally.candidates(word_score)
    kinds = workload_kinds(candidates) if candidates else {}
    semantic = semantic_scores(log.lines, findings.signature_lines, findings.failure_lines, candidates)
    # shared_weights: what each case shares with the log, which its label reads (`confidence`).
    scores, shared_weights = candidate_scores(candidates, tally, word_score, job, kinds, semantic)
    generic = tuple(sorted(tally.generic))
    if limit <= 0 or not scores:
        return _reading(log, job, findings, [], generic)

    top = max(shared_weights.values())  # the best hit's, as labels compare them
    # A case the word search calls strong for one of the lines of a log of a few lines
    # (`log_as_words`) that carries two of the error codes the log shows: strong, and first.
    as_words = {
        case_id
        for case_id in strong_as_words(list(log.lines))
        if tally.signature.get(case_id, 0.0) >= POSSIBLE_SIGNATURE
        and case_id in scores
        and _codes_carried(findings, tally, case_id) >= AS_WORDS_CODES
    }
    first_ids = _words_first(ranked(scores), as_words)[:limit]
    best = first_ids[0]
    cases = _hit_cases(first_ids, best)
    alike = {
        c: float(like) for c, case in cases.items() if (like := getattr(case, "like_first", None)) is not None
    }
    add_context_neighbours(scores, shared_weights, alike, tally.context)
    lifted = lift_like_the_first(scores, best, alike)  # cases listed higher as cases like the first hit
    hit_ids = _words_first(ranked(scores), as_words)[:limit]

    symptoms_listed = {
        case_id: sum(1 for t in case.linked_terms or () if t.facet == Facet.SYMPTOM)
        for case_id, case in cases.items()
    }
    explain = HitExplainer(findings, tally, word_reasons, symptoms_listed)
    labels = _labels(hit_ids, tally, shared_weights, top, explain, as_words)
    if not shows_trouble(findings, log.scanned):
        # Nothing in the log went wrong (a healthy server's start-up): the module names and
        # settings it shares with a case say which program ran, not that it failed.
        labels = ["weak" for _ in labels]
    hits = [
        explain.hit(cases[case_id], scores[case_id], label, best if case_id in lifted else None)
        for case_id, label in zip(hit_ids, labels, strict=True)
    ]
    return _reading(log, job, findings, hits, generic, frozenset(explain.shared_lines))


def _tally(
    log: LogText, findings: Findings, total: int
) -> tuple[Tally, dict[str, float], dict[str, list[tuple[str, Evidence]]]]:
    """Which published cases share the log's evidence, and how much (`total`: published
    cases): the `Tally` of its tokens, terms and versions, and the rare words each case
    shares (case id -> their weight, case id -> the words with their lines). Queries in
    this order: the tokens, the terms' cases, the rare words, the versions' affected cases
    (when the log prints one), then up to four for evidence in many cases
    (`log_candidates.add_common_evidence`)."""
    tally = Tally(findings, total)
    backend = get_backend()
    lookup = look_up_tokens(backend, findings, tally)
    common_terms = look_up_terms(findings, tally)
    word_score, word_reasons = rare_words(log.lines, findings.failure_lines, findings.signature_lines, total)
    slug_of = {t.name: t.slug for t in findings.terms if t.facet == Facet.COMPONENT}
    tally.add_versions(affected_by(findings.versions, slug_of))
    if lookup.common or common_terms:
        # Cases only common evidence names fill the places after those the rarer evidence found.
        add_common_evidence(backend, lookup, common_terms, tally, tally.candidates(word_score))
    return tally, word_score, word_reasons


def _codes_carried(findings: Findings, tally: Tally, case_id: str) -> int:
    """How many of the error codes the log shows (by their own patterns) `case_id` carries."""
    return sum(1 for t in tally.terms_of.get(case_id, ()) if findings.term_by_id[t].facet == Facet.ERROR_CODE)


def _words_first(case_ids: list[str], as_words: set[str]) -> list[str]:
    """`case_ids` (ranked) with those in `as_words` first, each group in its order."""
    return sorted(case_ids, key=lambda case_id: case_id not in as_words)


def _labels(
    hit_ids: list[str],
    tally: Tally,
    shared_weights: dict[str, float],
    top: float,
    explain: HitExplainer,
    as_words: set[str],
) -> list[Confidence]:
    """The label of each hit (`hit_ids`, best first): `confidence` of what it shares against
    the best `shared_weights` (`top`), strong hits only at the head (`head_labels`); a hit
    in `as_words` (the word search's strong cases for a line of a short log, which lead the
    hits: `log_as_words`) is strong, as the search of that line says. `confidence` is called
    here, by this module's name, once per hit in order (see `__all__`)."""
    return head_labels(
        "strong"
        if case_id in as_words
        else confidence(
            tally.signature.get(case_id, 0.0),
            tally.signature_count.get(case_id, 0),
            shared_weights[case_id],
            top,
            shared=tuple(explain.evidence_of(case_id)[1]),
            total=tally.total,
        )
        for case_id in hit_ids
    )


def _hit_cases(hit_ids: list[str], best: str) -> dict[str, Case]:
    """Case id -> case (`with_summary`: with its terms) of the hits `hit_ids` and of the
    published cases in the stored similar-case list of the first hit, `best`. Each is
    annotated `like_first`, its similar-case score with `best` (0..1; None when it is not in
    that list), which `log_scores.like_the_first` reads; their terms say how many symptoms
    each hit lists (`Shared.listed`). One query, plus the one of their terms."""
    return (
        Case.objects.filter(
            Q(id__in=hit_ids)
            | Q(
                id__in=CaseNeighbour.objects.filter(case_id=best).values("neighbour_id"),
                status=Case.Status.PUBLISHED,
            )
        )
        .annotate(
            like_first=Subquery(
                CaseNeighbour.objects.filter(case_id=best, neighbour_id=OuterRef("pk")).values("score")[:1]
            )
        )
        .with_summary()
        .in_bulk()
    )


def _reading(
    log: LogText,
    job: JobKind,
    findings: Findings,
    hits: list[LogHit],
    generic: tuple[str, ...] = (),
    shared: frozenset[str] = frozenset(),
) -> LogReading:
    """What was read, each distinct non-blank line counted once as carrying a signature,
    as context that a hit shares (`shared`: every line a hit lists, signature or not), or
    as ignored, so that no line a hit shows is also counted as "nothing the cases know"."""
    context_lines = shared - findings.counted_lines
    return LogReading(
        error_codes=findings.error_codes(),
        hits=hits,
        lines_read=log.lines_read,
        lines_blank=log.blank,
        lines_repeated=log.repeated,
        lines_with_signature=len(findings.counted_lines),
        lines_context=len(context_lines),
        lines_ignored=len(log.lines) - len(findings.counted_lines) - len(context_lines),
        job_kind=job.kind,
        generic_only=generic,
    )
