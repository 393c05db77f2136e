"""Triage: a symptom description and/or log text (with optional context) in, the few known
cases most like it out, each with why it matches, its root cause, what fixed it, the checks
to run and its sources. The MCP `triage` tool and `POST /api/triage` both call `triage()`
and serve `triage_document()`.

It reads through the one search module: `search.search_cases` for the words and
`search.match_log` for the log. Each source gives a case a part in 0..1 (the word score
relative to the best hit's; the log score against `LOG_SCORE_FULL`, so a log whose only
evidence is a signature most cases share counts little); the parts add up and are weighed
by the context (a training job's hang is rarely an inference case).
Confidence labels come from `interim_confidence`, the one place to switch to the search
module's own labels (issue 17) when they land.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from django.db.models import Prefetch

from . import search
from .models import Case, Source

Confidence = Literal["strong", "possible", "weak"]
JobKind = Literal["training", "inference"]

CANDIDATES = 10  # hits read from each source before fusing
# A log score at which the log alone counts as much as the best word match: about two
# specific signatures (an exact error phrase, a rare error code); a lone common signature
# such as "NCCL timeout" scores about 2.
LOG_SCORE_FULL = 8.0
TOP_MARGIN = 1.1  # first overall by at least this factor counts as a clear first
MIN_CASES, MAX_CASES = 3, 5
# Sized so that five cases fit the MCP tool's 8 KB: get_incident gives a case in full.
TEXT_CHARS = 200  # each root cause, fix and check is cut to this many characters
FIXES, CHECKS, SOURCES = 3, 2, 2  # per case
NOTHING_KNOWN = "Nothing like this is known: no case matches strongly."


@dataclass(frozen=True)
class TriageContext:
    """What the caller knows about the failing system; every field optional."""

    job: JobKind | None = None
    framework: str | None = None  # e.g. PyTorch, DeepSpeed, vLLM, JAX
    accelerator: str | None = None  # e.g. H100, A100, TPU v4
    scale: int | None = None  # accelerators in the job


@dataclass
class Candidate:
    case: Case
    fused: float = 0.0
    search_rank: int | None = None
    log_rank: int | None = None
    matched_terms: list[str] = field(default_factory=list)
    line_numbers: list[int] = field(default_factory=list)
    context_fit: list[str] = field(default_factory=list)
    context_misfit: list[str] = field(default_factory=list)
    confidence: Confidence = "weak"
    sources: list[str] = field(default_factory=list)  # URLs
    log_score: float = 0.0


@dataclass
class TriageAnswer:
    candidates: list[Candidate]
    log_lines: dict[int, str]  # line number -> text, each matched line once
    lines_scanned: int
    notes: list[str]

    @property
    def known(self) -> bool:
        return any(c.confidence == "strong" for c in self.candidates)


def interim_confidence(
    candidate: Candidate, ranked: list[Candidate], *, both_sources_asked: bool
) -> Confidence:
    """strong / possible / weak from what the search module returns today (the ranks and
    scores of the word search and the log match, the vocabulary terms matched), until it
    labels its hits itself (issue 17): then this returns the module's label for the case.

    strong: at least two matched terms, no contradicting context, and either first in
    every source asked, or first overall and found by both sources or `TOP_MARGIN` ahead
    of the next case; possible: first in one source, found by both, or at least half the
    best case's score; weak: otherwise. A context that contradicts the case (a training
    job against an inference case) never gives more than possible.
    """
    ranks = [r for r in (candidate.search_rank, candidate.log_rank) if r is not None]
    in_both = candidate.search_rank is not None and candidate.log_rank is not None
    first_everywhere = bool(ranks) and all(r == 1 for r in ranks) and (in_both or not both_sources_asked)
    top = ranked[0] is candidate
    runner_up = ranked[1].fused if len(ranked) > 1 else 0.0
    clear_top = top and (in_both or candidate.fused >= TOP_MARGIN * runner_up)
    if len(candidate.matched_terms) >= 2 and not candidate.context_misfit and (first_everywhere or clear_top):
        return "strong"
    if 1 in ranks or in_both or candidate.fused >= 0.5 * ranked[0].fused:
        return "possible"
    return "weak"


def label_hits(
    hits: list[tuple[Case, float, list[str]]], *, source: Literal["search", "log"], offset: int = 0
) -> list[Confidence]:
    """Confidence labels for one source's ranked hits (case, score, matched terms), by the
    same rule as triage (`interim_confidence`): what search_incidents and match_log report.
    `offset` is the rank of the first hit minus one (a later page has no first place)."""
    if not hits:
        return []
    best = max(score for _, score, _ in hits) or 1.0
    ranked = []
    for position, (case, score, terms) in enumerate(hits, start=offset + 1):
        part = score / best if source == "search" else min(1.0, score / LOG_SCORE_FULL)
        candidate = Candidate(case=case, fused=part, matched_terms=list(terms))
        if source == "search":
            candidate.search_rank = position
        else:
            candidate.log_rank = position
        ranked.append(candidate)
    if offset:
        ranked.insert(0, Candidate(case=hits[0][0], fused=float("inf")))  # the first page's top
    labels = [interim_confidence(c, ranked, both_sources_asked=False) for c in ranked]
    return labels[1:] if offset else labels


def _context_weight(case: Case, context: TriageContext, candidate: Candidate) -> float:
    """A factor on the fused score from the context, recording what fits and what does not."""
    weight = 1.0
    workload = case.workload.slug if case.workload else None
    if context.job is not None:
        other = "inference" if context.job == "training" else "training"
        if context.job == workload:
            weight *= 1.5
            candidate.context_fit.append(f"{context.job} job")
        elif other == workload:
            weight *= 0.4
            candidate.context_misfit.append(f"the case is about {other}, not {context.job}")
    components = " ".join(t.name.casefold() for t in case.components)
    if context.framework and context.framework.strip().casefold() in components:
        weight *= 1.05  # weak evidence: the common frameworks are in most cases
        candidate.context_fit.append(f"same framework: {context.framework.strip()}")
    accelerator = (case.accelerator or "").casefold()
    if context.accelerator and context.accelerator.strip().casefold() in accelerator:
        weight *= 1.1
        candidate.context_fit.append(f"same accelerator: {context.accelerator.strip()}")
    if context.scale and case.accelerator_count:
        ratio = max(context.scale, case.accelerator_count) / min(context.scale, case.accelerator_count)
        if ratio <= 4:
            weight *= 1.1
            candidate.context_fit.append(f"similar scale: {case.accelerator_count} accelerators")
    return weight


def triage(
    *, symptoms: str = "", log: str = "", context: TriageContext | None = None, limit: int = MAX_CASES
) -> TriageAnswer:
    """The `limit` (3-5) known cases most like the symptoms and/or log, best first.

    Queries: the search module's (about 12 for the words, 6 for the log) plus 3 to load
    the candidates with their terms and sources. Never raises on odd text.
    """
    context = context or TriageContext()
    limit = max(MIN_CASES, min(limit, MAX_CASES))
    candidates: dict[str, Candidate] = {}
    log_lines: dict[int, str] = {}
    if symptoms.strip():
        hits = search.search_cases(query=symptoms, limit=CANDIDATES).hits
        best = max((hit.score or 0.0 for hit in hits), default=0.0) or 1.0
        for rank, hit in enumerate(hits, start=1):
            candidate = candidates.setdefault(hit.case.id, Candidate(case=hit.case))
            candidate.search_rank = rank
            candidate.fused += (hit.score or 0.0) / best
            candidate.matched_terms += [t for t in hit.matched_terms if t not in candidate.matched_terms]
    if log.strip():
        for rank, log_hit in enumerate(search.match_log(log, limit=CANDIDATES), start=1):
            candidate = candidates.setdefault(log_hit.case.id, Candidate(case=log_hit.case))
            candidate.log_rank = rank
            candidate.log_score = log_hit.score
            candidate.fused += min(1.0, log_hit.score / LOG_SCORE_FULL)
            for match in log_hit.matched_lines:
                log_lines.setdefault(match.line_number, match.line)
                if match.line_number not in candidate.line_numbers:
                    candidate.line_numbers.append(match.line_number)
                if match.term not in candidate.matched_terms:
                    candidate.matched_terms.append(match.term)
    for candidate in candidates.values():
        candidate.fused *= _context_weight(candidate.case, context, candidate)
    # A log whose evidence, for the cases that fit the context, is only signatures most cases
    # share (under `LOG_SCORE_FULL / 2`) says nothing against a case the words put first: it
    # does not count as a second source.
    best_log = max((c.log_score for c in candidates.values() if not c.context_misfit), default=0.0)
    both = bool(symptoms.strip()) and best_log >= LOG_SCORE_FULL / 2
    ranked = sorted(candidates.values(), key=lambda c: (-c.fused, c.case.id))[:limit]
    for candidate in ranked:
        candidate.confidence = interim_confidence(candidate, ranked, both_sources_asked=both)
        candidate.line_numbers.sort()
    _load_sources(ranked)
    shown = {n for c in ranked for n in c.line_numbers}
    notes = [] if any(c.confidence == "strong" for c in ranked) else [NOTHING_KNOWN]
    if not symptoms.strip() and not log.strip():
        notes = ["Give symptoms (what failed, the error text) or log lines."]
    return TriageAnswer(
        candidates=ranked,
        log_lines={n: text for n, text in sorted(log_lines.items()) if n in shown},
        lines_scanned=len(log.splitlines()),
        notes=notes,
    )


def _load_sources(candidates: list[Candidate]) -> None:
    """Attach each candidate's sources (one query for all)."""
    if not candidates:
        return
    by_id = {
        case.id: case
        for case in Case.objects.filter(id__in=[c.case.id for c in candidates]).prefetch_related(
            Prefetch("sources", queryset=Source.objects.order_by("position"))
        )
    }
    for candidate in candidates:
        candidate.sources = [s.url for s in by_id[candidate.case.id].sources.all()]


def _cut(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1].rstrip() + "…"


def candidate_document(candidate: Candidate, links: dict[str, str]) -> dict[str, Any]:
    """One case of a triage answer, as the API and MCP serve it."""
    case = candidate.case
    why = {
        "matched_terms": candidate.matched_terms[:6],
        "line_numbers": candidate.line_numbers[:10],
        "context": candidate.context_fit + candidate.context_misfit,
    }
    return {
        "id": case.id,
        "title": case.title,
        "confidence": candidate.confidence,
        "why": why,
        "root_cause": {
            "category": case.root_cause_category.name,
            "description": _cut(case.root_cause_description),
        },
        "fix": [_cut(item) for item in case.remediation[:FIXES]],
        "checks": [_cut(item) for item in case.checks[:CHECKS]],
        "sources": candidate.sources[:SOURCES],
        **links,
    }


def triage_document(answer: TriageAnswer, link_for: Any) -> dict[str, Any]:
    """The triage answer as JSON: `known`, `cases` (best first), `log_lines` (each matched
    line once), `lines_scanned`, `notes`, `truncated`. `link_for(case_id)` gives a case's
    `url` and `html_url` (absolute, as the caller's front door builds them)."""
    return {
        "known": answer.known,
        "cases": [candidate_document(c, link_for(c.case.id)) for c in answer.candidates],
        "log_lines": [{"line_number": n, "line": text} for n, text in answer.log_lines.items()],
        "lines_scanned": answer.lines_scanned,
        "notes": answer.notes,
        "truncated": False,
    }
