"""Triage: a symptom description and/or log text (with optional context) in, the few known
cases most like it out, each with why it matches, its root cause, what fixed it, the checks
to run and its sources. The MCP `triage` tool and `POST /api/triage` both call `triage()`
and serve `triage_document()`.

It reads through the one search module: `search.search_cases` for the words and
`search.match_log` for the log. Each source gives a case a part in 0..1 (the word score
relative to the best hit's; the log score against `LOG_SCORE_FULL`, so a log whose only
evidence is a signature most cases share counts little); the parts add up and are weighed
by the context (a training job's hang is rarely an inference case) to order the cases.

Confidence is the search engine's own label, never recomputed here: a case's label is the
strongest of those the word search (`SearchHit.confidence`, calibrated) and the log match
(`LogHit.confidence`) gave it, so `search_incidents`, `match_log`, their API twins and
triage say the same of the same hit. The context orders the cases and is reported in
`why.context`; it does not change a label. "Nothing like this is known" is said exactly
when no case is strong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from django.db.models import Prefetch

from . import search
from .models import Case, Source
from .search.results import Confidence

JobKind = Literal["training", "inference"]

CANDIDATES = 10  # hits read from each source before fusing
# A log score at which the log alone counts as much as the best word match: about two
# specific signatures (an exact error phrase, a rare error code); a lone common signature
# such as "NCCL timeout" scores about 2.
LOG_SCORE_FULL = 8.0
MIN_CASES, MAX_CASES = 3, 5
# Sized so that five cases fit the MCP tool's 8 KB: get_incident gives a case in full.
TEXT_CHARS = 200  # each root cause, fix and check is cut to this many characters
FIXES, CHECKS, SOURCES = 3, 2, 2  # per case
NOTHING_KNOWN = "Nothing like this is known: no case matches strongly."
RANK: dict[Confidence, int] = {"strong": 0, "possible": 1, "weak": 2}


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
    labels: list[Confidence] = field(default_factory=list)  # the engine's, one per source
    sources: list[str] = field(default_factory=list)  # URLs
    log_score: float = 0.0

    @property
    def confidence(self) -> Confidence:
        """The strongest label the search engine gave this case (weak when none)."""
        return min(self.labels, key=RANK.__getitem__, default="weak")


@dataclass
class TriageAnswer:
    candidates: list[Candidate]
    log_lines: dict[int, str]  # line number -> text, each matched line once
    lines_scanned: int
    notes: list[str]

    @property
    def known(self) -> bool:
        return any(c.confidence == "strong" for c in self.candidates)


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

    Each case carries the engine's strongest label for it (see the module docstring);
    `notes` says `NOTHING_KNOWN` when none is strong, and names the strong cases when each
    contradicts the context (a strong inference case for a training job).

    Queries: the search module's (about 12 for the words, 6 for the log) plus 3 to load
    the candidates with their terms and sources. Never raises on odd text.
    """
    context = context or TriageContext()
    limit = max(MIN_CASES, min(limit, MAX_CASES))
    candidates: dict[str, Candidate] = {}
    log_lines: dict[int, str] = {}
    if symptoms.strip():
        hits = search.search_cases(query=symptoms, limit=CANDIDATES, facets=False).hits
        best = max((hit.score or 0.0 for hit in hits), default=0.0) or 1.0
        for rank, hit in enumerate(hits, start=1):
            candidate = candidates.setdefault(hit.case.id, Candidate(case=hit.case))
            candidate.search_rank = rank
            candidate.labels.append(_label(hit.confidence))
            candidate.fused += (hit.score or 0.0) / best
            candidate.matched_terms += [t for t in hit.matched_terms if t not in candidate.matched_terms]
    if log.strip():
        for rank, log_hit in enumerate(search.match_log(log, limit=CANDIDATES), start=1):
            candidate = candidates.setdefault(log_hit.case.id, Candidate(case=log_hit.case))
            candidate.log_rank = rank
            candidate.log_score = log_hit.score
            candidate.labels.append(_label(log_hit.confidence))
            candidate.fused += min(1.0, log_hit.score / LOG_SCORE_FULL)
            for match in log_hit.matched_lines:
                log_lines.setdefault(match.line_number, match.line)
                if match.line_number not in candidate.line_numbers:
                    candidate.line_numbers.append(match.line_number)
                if match.term not in candidate.matched_terms:
                    candidate.matched_terms.append(match.term)
    for candidate in candidates.values():
        candidate.fused *= _context_weight(candidate.case, context, candidate)
    ranked = sorted(candidates.values(), key=lambda c: (-c.fused, c.case.id))[:limit]
    for candidate in ranked:
        candidate.line_numbers.sort()
    _load_sources(ranked)
    shown = {n for c in ranked for n in c.line_numbers}
    strong = [c for c in ranked if c.confidence == "strong"]
    notes = [] if strong else [NOTHING_KNOWN]
    if strong and all(c.context_misfit for c in strong):
        # Known, but only as something the caller's context says this is not: say so.
        notes = [f"{c.case.id} matches strongly, but {c.context_misfit[0]}." for c in strong]
    if not symptoms.strip() and not log.strip():
        notes = ["Give symptoms (what failed, the error text) or log lines."]
    return TriageAnswer(
        candidates=ranked,
        log_lines={n: text for n, text in sorted(log_lines.items()) if n in shown},
        lines_scanned=len(log.splitlines()),
        notes=notes,
    )


def _label(value: Confidence | None) -> Confidence:
    return value or "weak"


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
