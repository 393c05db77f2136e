"""Triage: a symptom description and/or log text (with optional context) in, the few known
cases most like it out, each with why it matches, its root cause, what fixed it, the checks
to run and its sources. The MCP `triage` tool and `POST /api/triage` both call `triage()`
and serve `triage_document()`.

It reads through the one search module: `search.search_cases` for the words and
`search.match_log` for the log. Each source gives a case a part in 0..1: the word score
relative to the best hit's; the log score relative to the best log hit's, or to
`LOG_SCORE_FULL` when the best is below it (so a log whose only evidence is a signature most
cases share counts little, and a rich log keeps match_log's order among its hits instead of
every hit counting in full). The parts add up and are weighed by the context (a training
job's hang is rarely an inference case) to order the cases of the same confidence: strong
cases come first, then possible ones, whatever their parts.

When fewer than `MIN_CASES` cases match, the word search's partial matches (label weak)
fill the answer up to `MIN_CASES`, after the matches, and a note names them.

The word search's notes on how it read the words (`SearchResults.reading_notes`) are passed
on as it words them: a case id merged into another case is answered with that case, first,
and a note says so; a retracted id's note says it was retracted and why; the retracted cases
alone matching, or alone holding a word, are named with their reasons.

Confidence is the search engine's own label, never recomputed here: a case's label is the
strongest of those the word search (`SearchHit.confidence`, calibrated) and the log match
(`LogHit.confidence`) gave it, so `search_incidents`, `match_log`, their API twins and
triage say the same of the same hit. The context orders the cases and is reported in
`why.context`; it does not change a label. "Nothing like this is known" is said exactly
when no case is strong.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from django.db.models import Prefetch

from . import search
from .models import Case, Facet, Source, Term
from .search.log_job_kind import a_job
from .search.log_lines import shown_line
from .search.results import CONFIDENCE_RANK, Confidence, like_sentence
from .search.scale_words import read_scale
from .selectors.params import NOTHING_TO_TRIAGE
from .selectors.spelling import resolve_term, spelling_key

JobKind = Literal["training", "inference"]

CANDIDATES = 10  # hits read from each source before fusing
# A log score at which the log alone counts as much as the best word match: about two
# specific signatures (an exact error phrase, a rare error code); a lone common signature
# such as "NCCL timeout" scores about 2. A log hit's part is its score over the best log
# hit's, or over this when the best scores less: a cap instead (every hit past it counting
# 1.0) tied the hits of a rich log and ordered them by id.
LOG_SCORE_FULL = 8.0
MIN_CASES, MAX_CASES = 3, 5
NOTHING_KNOWN = "Nothing like this is known: no case matches strongly."
# Accelerator families whose GPU shares a board with an Arm CPU (NVIDIA Grace, over
# NVLink-C2C): host-side failures there (Arm memory ordering, the C2C link) do not carry over
# to a GPU in an x86 server, nor the other way round.
ARM_HOSTED = frozenset({"gh200", "gb200"})
# Factors on a case whose hardware the context contradicts: another vendor's chip, or the
# other host platform, rules a case out more than another generation of the same vendor's.
OTHER_VENDOR, OTHER_PLATFORM, OTHER_FAMILY = 0.3, 0.3, 0.7
FAR_SCALE, FAR_SCALE_WEIGHT = 32, 0.8  # a case 32 times larger or smaller than the job
# Whose first hit a reason's "Similar to IL-0606, ..." names, when it is not triage's first.
WORD_SEARCH, LOG_MATCH = "word search", "log match"


@dataclass(frozen=True)
class Detail:
    """How much of each case a triage document shows. `FULL` (the API's) is sized so that
    five cases usually fit the MCP tool's 8 KB; the tool steps down `DETAILS` when they do not
    (long log lines, long titles), so that at least three cases fit. get_incident gives a
    case in full."""

    text_chars: int = 200  # each root cause, fix and check is cut to this many characters
    fixes: int = 3
    checks: int = 2
    sources: int = 2
    line_numbers: int = 10  # matched log lines a case points at
    line_chars: int = 300  # each log line's text


FULL = Detail()
# Fullest first; the last one fits three cases of the largest inputs in 8 KB with room to spare.
DETAILS = (
    FULL,
    Detail(text_chars=140, fixes=2, checks=2, sources=2, line_numbers=5, line_chars=200),
    Detail(text_chars=100, fixes=1, checks=1, sources=1, line_numbers=3, line_chars=160),
    Detail(text_chars=60, fixes=1, checks=1, sources=1, line_numbers=2, line_chars=120),
)


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
    # Why each source lists it, in its own words: the word search's (`SearchHit.why`, as
    # search_incidents says it), then the log matching's (`LogHit.why`, as match_log does).
    reasons: list[str] = field(default_factory=list)
    line_numbers: list[int] = field(default_factory=list)  # matched log lines, evidence first
    context_fit: list[str] = field(default_factory=list)
    context_misfit: list[str] = field(default_factory=list)
    labels: list[Confidence] = field(default_factory=list)  # the engine's, one per source
    sources: list[str] = field(default_factory=list)  # URLs
    log_score: float = 0.0
    context_weight: float = 1.0  # the context's factor on `fused` (`_context_weight`)
    # The first hit's id when a source lists it as the case like that hit (`SearchHit.like`,
    # else `LogHit.like`: the word search's first, as `reasons` are), as its `why` says
    # ("Similar to IL-0459, the first hit."); None otherwise.
    like: str | None = None
    # For each reason (by its index in `reasons`) that ends in a source's `like_sentence`:
    # the id it names and whose first hit that is ("word search", "log match"), so that
    # `name_whose_first` can say so when triage's own first case is another.
    likes: dict[int, tuple[str, str]] = field(default_factory=dict)

    def add_reason(self, why: str | None, like: str | None, whose: str) -> None:
        """Append a source's `why` (none: nothing), noting the `like` its last sentence names."""
        if not why:
            return
        if like and why.endswith(like_sentence(like)):
            self.likes[len(self.reasons)] = (like, whose)
        self.reasons.append(why)

    @property
    def confidence(self) -> Confidence:
        """The strongest label the search engine gave this case (weak when none)."""
        return min(self.labels, key=CONFIDENCE_RANK.__getitem__, default="weak")


@dataclass
class TriageAnswer:
    candidates: list[Candidate]
    log_lines: dict[int, str]  # line number -> text, each matched line once
    lines_read: int  # the log engine's count (`LogReading.lines_read`); 0 when no log was read
    notes: list[str]

    @property
    def known(self) -> bool:
        return any(c.confidence == "strong" for c in self.candidates)


@dataclass(frozen=True)
class Chip:
    """An accelerator as the context weighs it: its name, vendor, family and host platform."""

    name: str
    vendor: str | None
    family: str  # the family term's slug (A100 80GB -> a100)
    arm_hosted: bool


class Chips:
    """The accelerator vocabulary (one query), to compare the context's chip with a case's."""

    def __init__(self) -> None:
        self.terms = list(Term.objects.of(Facet.ACCELERATOR))
        self.by_id = {term.id: term for term in self.terms}
        self._named: dict[str, Chip | None] = {}

    def chip(self, term: Term) -> Chip:
        family = self.by_id.get(term.family_id, term) if term.family_id else term
        return Chip(term.name, term.vendor, family.slug, family.slug in ARM_HOSTED)

    def named(self, text: str) -> Chip | None:
        """The chip `text` names ("H100", "NVIDIA A100 80GB", "8x H100 SXM"), None when unknown.
        Kept per text: a triage asks it for the context's chip once per candidate case."""
        if text not in self._named:
            self._named[text] = self._resolve(text)
        return self._named[text]

    def _resolve(self, text: str) -> Chip | None:
        term = resolve_term(text, self.terms)
        if term is None:  # the longest spelling the text contains, as a whole word
            wanted = f" {spelling_key(text)} "
            inside = [
                (len(spelling), t)
                for t in self.terms
                for spelling in (t.name, *t.synonyms)
                if f" {spelling_key(spelling)} " in wanted
            ]
            term = max(inside, key=lambda pair: pair[0])[1] if inside else None
        return self.chip(term) if term is not None else None


def _context_weight(
    case: Case, context: TriageContext, candidate: Candidate, chips: Chips | None = None
) -> float:
    """A factor on the fused score from the context, recording what fits and what does not.

    A case whose hardware contradicts the context's accelerator is ranked down: another
    vendor or host platform (`OTHER_VENDOR`, `OTHER_PLATFORM`) more than another family of
    the same vendor's (`OTHER_FAMILY`); so is a case at a very different scale. `chips` (the
    accelerator vocabulary) is needed to compare chips; without it, or for a chip the
    vocabulary does not know, only a plain match of the names counts."""
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
    if context.accelerator and context.accelerator.strip():
        weight *= _hardware_weight(case, context.accelerator.strip(), candidate, chips)
    if context.scale and case.accelerator_count:
        ratio = max(context.scale, case.accelerator_count) / min(context.scale, case.accelerator_count)
        if ratio <= 4:
            weight *= 1.1
            candidate.context_fit.append(f"similar scale: {case.accelerator_count} accelerators")
        elif ratio >= FAR_SCALE:
            weight *= FAR_SCALE_WEIGHT
            plural = "s" if case.accelerator_count != 1 else ""
            candidate.context_misfit.append(
                f"the case ran on {case.accelerator_count} accelerator{plural}, the job on {context.scale}"
            )
    return weight


def _hardware_weight(case: Case, wanted: str, candidate: Candidate, chips: Chips | None) -> float:
    asked = chips.named(wanted) if chips else None
    term = case.accelerator_term
    if chips is None or asked is None or term is None:
        if wanted.casefold() in (case.accelerator or "").casefold():
            candidate.context_fit.append(f"same accelerator: {wanted}")
            return 1.1
        return 1.0
    have = chips.chip(term)
    if have.family == asked.family:
        candidate.context_fit.append(f"same accelerator: {wanted}")
        return 1.1
    if (have.vendor or "").casefold() != (asked.vendor or "").casefold():
        # The chip asked about by its vendor and name (`not Google TPU v4`): the vendor alone
        # read as a place the case ran on (`ran on NVIDIA H100, not Google`, walk #11).
        candidate.context_misfit.append(
            f"the case ran on {have.vendor} {have.name}, not {asked.vendor} {asked.name}"
        )
        return OTHER_VENDOR
    if have.arm_hosted != asked.arm_hosted:
        host = (
            f"{have.name}, an Arm (Grace) host, not {asked.name}"
            if have.arm_hosted
            else f"{have.name}, not on an Arm (Grace) host like {asked.name}"
        )
        candidate.context_misfit.append(f"the case ran on {host}")
        return OTHER_PLATFORM
    candidate.context_misfit.append(f"the case ran on {have.name}, not {asked.name}")
    return OTHER_FAMILY


def triage(
    *, symptoms: str = "", log: str = "", context: TriageContext | None = None, limit: int = MAX_CASES
) -> TriageAnswer:
    """The `limit` (3-5) known cases most like the symptoms and/or log, best first: the
    matches, then, when fewer than `MIN_CASES` match, the best partial matches of the words
    (weak) up to `MIN_CASES`. Fewer only when the library has no more cases to offer (no
    words, or a log whose signatures few cases share).

    Each case carries the engine's strongest label for it (see the module docstring);
    `notes` says `NOTHING_KNOWN` when none is strong, and names the strong cases when each
    contradicts the context (a strong inference case for a training job).

    Queries: the search module's (about 12 for the words, 6 for the log, and a word search
    per line of a log of a few lines, `search.log_as_words`) plus 3 to load
    the candidates with their terms and sources. Never raises on odd text.
    """
    context = context or TriageContext()
    limit = max(MIN_CASES, min(limit, MAX_CASES))
    words, stated_scale = read_scale(symptoms)
    if stated_scale and context.scale is None:
        context = replace(context, scale=stated_scale)
    candidates: dict[str, Candidate] = {}
    partial: list[Candidate] = []  # the words' partial matches, to fill up to MIN_CASES
    log_lines: dict[int, str] = {}
    read_as: tuple[str, ...] = ()  # what the word search says of how it read the words
    if words.strip():
        results = search.search_cases(query=words, limit=CANDIDATES, facets=False)
        read_as = results.reading_notes
        hits = results.hits
        best = max((hit.score or 0.0 for hit in hits), default=0.0) or 1.0
        for rank, hit in enumerate(hits, start=1):
            candidate = candidates.setdefault(hit.case.id, Candidate(case=hit.case))
            candidate.search_rank = rank
            candidate.labels.append(_label(hit.confidence))
            candidate.fused += (hit.score or 0.0) / best
            candidate.matched_terms += [t for t in hit.matched_terms if t not in candidate.matched_terms]
            candidate.add_reason(hit.why, hit.like, WORD_SEARCH)
            candidate.like = candidate.like or hit.like
        for hit in results.partial_hits:  # best first, after the matches
            filler = Candidate(case=hit.case, labels=[_label(hit.confidence)], like=hit.like)
            filler.fused = (hit.score or 0.0) / best
            filler.matched_terms = list(hit.matched_terms)
            filler.add_reason(hit.why, hit.like, WORD_SEARCH)
            partial.append(filler)
    log_kind: JobKind | None = None
    lines_read = 0
    if log.strip():
        reading = search.read_log(log, limit=CANDIDATES)
        lines_read = reading.lines_read
        if context.job is None and reading.job_kind is not None:
            # The log says which kind of job failed (a torchrun launcher, vLLM's metrics):
            # weighed as if the caller had said so, as the log matching itself does.
            log_kind = cast(JobKind, reading.job_kind)  # `_job_kind` says only these two
            context = replace(context, job=log_kind)
        full = max([LOG_SCORE_FULL, *(log_hit.score for log_hit in reading.hits)])
        for rank, log_hit in enumerate(reading.hits, start=1):
            candidate = candidates.setdefault(log_hit.case.id, Candidate(case=log_hit.case))
            candidate.log_rank = rank
            candidate.log_score = log_hit.score
            candidate.labels.append(_label(log_hit.confidence))
            candidate.fused += log_hit.score / full
            candidate.add_reason(log_hit.why, log_hit.like, LOG_MATCH)
            candidate.like = candidate.like or log_hit.like
            # Each matched line once (at most 50 a hit), as the log matching orders them: the
            # lines carrying a signature first, then those sharing only a component's name.
            for line in log_hit.lines:
                log_lines.setdefault(line.line_number, line.line)
                if line.line_number not in candidate.line_numbers:
                    candidate.line_numbers.append(line.line_number)
                candidate.matched_terms += [t for t in line.terms if t not in candidate.matched_terms]
    partial = [c for c in partial if c.case.id not in candidates]
    chips = Chips() if (context.accelerator or "").strip() and (candidates or partial) else None
    for candidate in [*candidates.values(), *partial]:
        candidate.context_weight = _context_weight(candidate.case, context, candidate, chips)
        candidate.fused *= candidate.context_weight
    # Confidence first: the parts and the context order cases of one label, never a possible
    # case above a strong one (the context lifted training cases that shared a common
    # signature above the two the log's Xid 79 made strong, and cut them off the list).
    ranked = sorted(candidates.values(), key=lambda c: (CONFIDENCE_RANK[c.confidence], -c.fused, c.case.id))[
        :limit
    ]
    matched = len(ranked)
    # A partial match only fills the promised minimum, after every match, in the word
    # search's order (which weighs how like the first hit each is, not its score alone): the
    # context may order the partial matches among themselves, never above a match.
    ranked += sorted(partial, key=lambda c: -c.context_weight)[: max(0, MIN_CASES - matched)]
    _load_sources(ranked)
    name_whose_first(ranked)
    shown = {n for c in ranked for n in c.line_numbers}
    strong = [c for c in ranked if c.confidence == "strong"]
    notes = [] if strong else [NOTHING_KNOWN]
    if strong and all(c.context_misfit for c in strong):
        # Known, but only as something the caller's context says this is not: say so.
        notes = [f"{c.case.id} matches strongly, but {c.context_misfit[0]}." for c in strong]
    # As search says them: a case id merged away (answered with the case it was merged
    # into) or retracted (and why), words only a retracted case contains, a correction.
    notes.extend(read_as)
    if len(ranked) > matched:
        notes.append(partial_note(matched, [c.case.id for c in ranked[matched:]]))
    if log_kind:
        notes.append(f"The log reads as {a_job(log_kind)}: weighed as context.")
    if stated_scale:
        notes.append(f"The words' scale ({stated_scale} accelerators) was weighed as context, not searched.")
    if chips is not None and chips.named(context.accelerator or "") is None:
        notes.append(unknown_accelerator(context.accelerator or ""))
    if not symptoms.strip() and not log.strip():
        notes = [NOTHING_TO_TRIAGE[0].upper() + NOTHING_TO_TRIAGE[1:] + "."]
    return TriageAnswer(
        candidates=ranked,
        log_lines={n: text for n, text in sorted(log_lines.items()) if n in shown},
        lines_read=lines_read,
        notes=notes,
    )


def name_whose_first(ranked: list[Candidate]) -> None:
    """Reword, in place, each reason of `ranked` (triage's answer, best first) whose last
    sentence says `Similar to IL-0606, the first hit.` when IL-0606 is not triage's own first
    case: that sentence is the word search's or the log match's, and "the first hit" read in
    triage's list named another case (IL-0532 first, "Similar to IL-0606, the first hit",
    IL-0606 second). It then reads `Similar to IL-0606, the log match's first hit.`; when
    IL-0606 is triage's first case the source's words stand. `like` is left as the source
    gave it."""
    first = ranked[0].case.id if ranked else None
    for candidate in ranked:
        for index, (like, whose) in candidate.likes.items():
            if like != first:
                reason = candidate.reasons[index].removesuffix(like_sentence(like))
                candidate.reasons[index] = f"{reason}Similar to {like}, the {whose}'s first hit."


def partial_note(matched: int, filled: list[str]) -> str:
    """The note when partial matches fill the answer: how many cases match, and which are
    only the closest partial matches (weak), so that nobody reads them as matches."""
    if matched == 0:
        head = "No case matches"
    else:
        head = f"Only {matched} case{'s' if matched > 1 else ''} match{'' if matched > 1 else 'es'}"
    return f"{head}; the closest partial matches fill the list: {', '.join(filled)} (weak)."


def unknown_accelerator(named: str) -> str:
    """The note when the context's accelerator is not in the vocabulary: the answer still
    stands, but the chip was compared with each case's hardware by its words only."""
    return (
        f"The accelerator {named.strip()!r} is not in the vocabulary: it was compared with each case's"
        " hardware by name only. The chips known: GET /api/vocab/accelerator, or the vocab tool with"
        " facet='accelerator'."
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


def _cut(text: str | None, chars: int) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def candidate_document(candidate: Candidate, links: dict[str, str], detail: Detail = FULL) -> dict[str, Any]:
    """One case of a triage answer, as the API and MCP serve it, shown at `detail`: `id`,
    `title`, `confidence`, `why` (`text`, `matched_terms`, `line_numbers`, `context`),
    `like` (the first hit's id when the case is listed as one like it, as a search or log
    hit gives it: `Candidate.like`; None otherwise; `why` says whose first hit it is when it
    is not triage's first case, `name_whose_first`), `root_cause` (`category`,
    `description`), `fix`, `checks`, `sources`, then `links` (`url`, `html_url`)."""
    case = candidate.case
    why = {
        # In words, as search_incidents and match_log say it of their hits: every case says
        # why it is listed, also when it carries no term of the query and no log was given.
        "text": _cut(" ".join(candidate.reasons), detail.text_chars) or "",
        "matched_terms": candidate.matched_terms[:6],
        # The evidence first, shown in log order: cut after sorting, a case pointed at a long
        # log's first lines (a launcher's banner, NCCL's start-up), not at its error lines.
        "line_numbers": sorted(candidate.line_numbers[: detail.line_numbers]),
        "context": candidate.context_fit + candidate.context_misfit,
    }
    return {
        "id": case.id,
        "title": case.title,
        "confidence": candidate.confidence,
        "why": why,
        "like": candidate.like,
        "root_cause": {
            "category": case.root_cause_category.name,
            "description": _cut(case.root_cause_description, detail.text_chars),
        },
        "fix": [_cut(item, detail.text_chars) for item in case.remediation[: detail.fixes]],
        "checks": [_cut(item, detail.text_chars) for item in case.checks[: detail.checks]],
        "sources": candidate.sources[: detail.sources],
        **links,
    }


def triage_document(answer: TriageAnswer, link_for: Any, detail: Detail = FULL) -> dict[str, Any]:
    """The triage answer as JSON: `known`, `cases` (best first), `log_lines` (each line a
    case points at, once), `lines_read`, `notes`, `truncated`. `link_for(case_id)` gives a
    case's `url` and `html_url` (absolute, as the caller's front door builds them). `detail`
    says how much of each case to show (the API shows `FULL`)."""
    cases = [candidate_document(c, link_for(c.case.id), detail) for c in answer.candidates]
    shown = {n for case in cases for n in case["why"]["line_numbers"]}
    return {
        "known": answer.known,
        "cases": cases,
        "log_lines": [
            {
                "line_number": n,
                "line": shown_line(text, detail.line_chars),
            }
            for n, text in answer.log_lines.items()
            if n in shown
        ],
        "lines_read": answer.lines_read,
        "notes": answer.notes,
        "truncated": False,
    }
