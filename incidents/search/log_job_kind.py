"""The kind of job a pasted log shows (training or inference) against the workload of each
case (`environment.workload`): a case of that kind ranks higher, a case only of the other
kind lower, unless some line of the log names that other kind alone (`JobKind.factor`).
"""

from __future__ import annotations

from dataclasses import dataclass

import re2
from django.conf import settings
from django.db.models import QuerySet

from incidents import store_cache
from incidents.models import Case, CaseTerm, Facet

from .log_lines import LogLines

# The log's kind of job against the case's workload (`environment.workload`): a case of
# that kind gains, a case only of the other kind loses unless a line names that kind alone.
# Losing it whatever the log showed ranked a vLLM host-memory leak (inference) tenth for the
# GRPO job whose vLLM rollouts leaked (training lines, and a vLLM engine line): on the tuning
# logs (eval/logs.json) recall@5 0.908 -> 0.934, MRR@10 0.904 -> 0.910, and the same at
# any KIND_MISMATCH from 0.5 to 1.0.
KIND_MATCH = 1.25
KIND_MISMATCH = 0.6

# Each finds a line naming the kind from the line's start, so one match per line is read
# (`job_kind` counts lines); no group captures, so RE2 need not track one along a long line.
_KIND_PATTERNS = {
    # The launcher's lines count too: a torchrun job's log may have no training word at all
    # (an NCCL watchdog timeout, then `torch.distributed.elastic...ChildFailedError` with its
    # `local_rank`), and read as no kind it ranked a vLLM (inference) hang first.
    # A step counter (`step 15000 |`, `Step 1200/5000`) and a loss however it is named
    # (`lm_loss`, `train_loss=`) are a training loop's lines: a loop printing only `step N |
    # lm_loss ... | grad_norm ...` read as no kind (a checkpoint write's ENOSPC log).
    "training": re2.compile(
        r"(?im)^[^\n]*?\b(?:epoch|iteration|global_step|train(?:ing|er)?|\w*loss|optimizer|backward|"
        r"step[ :=#\[]*\d+|"
        r"gradient|deepspeed|megatron|fsdp|torchrun|pretrain\w*|fine-?tun\w*|"
        r"torch\.distributed\.(?:run|launch|elastic)|elastic[ _]agent|ChildFailedError|local_rank|"
        r"rdzv\w*|rendezvous)\b"
    ),
    # `completions` (the API route, `/v1/completions`) or `chat.completion`, not a bare
    # `completion`: NCCL's `NET/IB : Got completion with error 12` is an InfiniBand work
    # completion, which made RoCE/IB training logs read as inference logs.
    "inference": re2.compile(
        r"(?im)^[^\n]*?\b(?:vllm|inference|serving|requests?|generate|generation|tgi|triton|"
        r"sglang|prefill|decode|kv[ _-]?cache|endpoint|completions|chat\.completion|prompt)\b"
    ),
}


def kind_lines(scanned: LogLines) -> dict[str, set[int]]:
    """Kind of job -> the indexes of the log's distinct lines (`scanned`) that name it and
    not the other kind: a training loop's `step 1200 | loss 2.31 | tokens/s 412873` names
    both (throughput is printed by training and serving alike), and its many such lines
    read as inference when they counted."""
    found = {kind: scanned.lines_matching(pattern) for kind, pattern in _KIND_PATTERNS.items()}
    both = found["training"] & found["inference"]
    return {kind: lines - both for kind, lines in found.items()}


def job_kind(scanned: LogLines, found: dict[str, set[int]] | None = None) -> str | None:
    """ "training" or "inference" when the log's distinct lines (`scanned`, or their
    `kind_lines`) clearly say which, else None."""
    found = found if found is not None else kind_lines(scanned)
    training, inference = len(found["training"]), len(found["inference"])
    if training >= 1 and training >= 2 * inference:
        return "training"
    if inference >= 1 and inference >= 2 * training:
        return "inference"
    return None


def a_job(kind: str) -> str:
    """A job of `kind` (a `job_kind`) with its article, as every answer writes it: "an
    inference job", "a training job" (the /match/ page and triage's note each chose the
    article, and both once wrote "a inference job")."""
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return f"{article} {kind} job"


@dataclass(frozen=True)
class JobKind:
    """The kind of job a log shows (`job_kind`) and whether it also has lines of each kind
    alone (`kind_lines`)."""

    kind: str | None  # "training", "inference" or None when the log does not say
    # A log with lines of each kind alone (a GRPO job whose rollouts run a vLLM engine: its
    # `init engine (... create kv cache ...)` line names no training word) is mostly one
    # kind but shows the other: a case of that other kind only may be its failure, so it is
    # not disfavoured. A line naming both counts for neither (`kind_lines`).
    both: bool

    def factor(self, case_kinds: frozenset[str]) -> float:
        """The ranking's factor for a case of workloads `case_kinds`: `KIND_MATCH` for a case
        of the log's kind, `KIND_MISMATCH` for a case only of the other kind unless the log
        shows both, else 1."""
        if self.kind and self.kind in case_kinds:
            return KIND_MATCH
        if self.kind and case_kinds and not self.both:
            return KIND_MISMATCH  # a case only of a kind of job the log does not show
        return 1.0


def read_job_kind(scanned: LogLines) -> JobKind:
    """The `JobKind` of a log's distinct lines (`scanned`)."""
    found = kind_lines(scanned)
    return JobKind(job_kind(scanned, found), bool(found["training"]) and bool(found["inference"]))


def workload_kinds(candidates: list[str]) -> dict[str, frozenset[str]]:
    """Candidate case id -> its workload slugs (training / inference). With the store cache
    on, every published case's are kept in this process per store generation (no query; a
    broad log has thousands of candidates, whose ids as query parameters cost more than the
    rows); off, one query for the candidates."""
    if settings.STORE_CACHE:
        every = store_cache.local("workload-kinds", lambda: _kinds_of(Case.objects.published()))
        return {case_id: every[case_id] for case_id in candidates if case_id in every}
    return _kinds_of(Case.objects.filter(id__in=candidates))


def _kinds_of(cases: QuerySet[Case]) -> dict[str, frozenset[str]]:
    """Case id -> its workload slugs, for the cases of `cases` that have one (one query, its
    rows streamed). Cases with the same slugs share one frozenset: kept for every published
    case, a set each took 30 MB of a worker at 100,000 cases, against 11 MB shared."""
    kinds: dict[str, frozenset[str]] = {}
    shared: dict[frozenset[str], frozenset[str]] = {}
    for case_id, slug in (
        CaseTerm.objects.filter(
            case__in=cases, term__facet=Facet.WORKLOAD, term__slug__in=list(_KIND_PATTERNS)
        )
        .values_list("case_id", "term__slug")
        .iterator(chunk_size=2000)
    ):
        held = kinds.get(case_id)
        slugs = frozenset((slug,)) if held is None else held | {slug}
        kinds[case_id] = shared.setdefault(slugs, slugs)
    return kinds
