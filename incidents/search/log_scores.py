"""How a pasted log's evidence scores the cases that share it (`Tally`), and the ranking
score that orders them (`candidate_scores`, `ranked`, `lift_like_the_first`).

A case scores for each found term it carries, weighted by facet and rarity: `facet weight *
log(1 + N / n)`, an error code a flat `CODE_WEIGHT`; for each failure token its text holds,
`TOKEN_WEIGHT * log(1 + N / n)`; for a component version inside one of its `affected`
ranges, `VERSION_WEIGHT`. In the ranking (not in confidence) a token that names a program's
code or settings rather than a failure counts less, and such tokens read on one line count
once (`NAMING_WEIGHT`, `naming_part`). Rare words (`log_rare_words`), the job kind
(`log_job_kind`), the semantic score of the evidence lines (`SEMANTIC_FACTOR`) and a GPU
fault the case shares (`ROOT_FACTOR`: the root of the timeouts that follow it) then order
the cases; `confidence` reads none of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from incidents.models import Facet

from . import encoder
from .log_confidence import shared_weight
from .log_findings import Findings
from .log_job_kind import JobKind
from .log_lines import shown_line
from .log_text import evidence_lines
from .log_tokens import NAMING_EXTRACTORS
from .semantic import candidate_scores as semantic_candidate_scores
from .semantic import query_vector

TOKEN_WEIGHT = 1.2
FACET_WEIGHTS: dict[str, float] = {Facet.SYMPTOM: 1.0, Facet.ROOT_CAUSE: 0.8, Facet.COMPONENT: 0.5}
# A case carrying an error code the log shows gains this much, not scaled by rarity: the
# code's text (`ncclSystemError`, `unhandled system error`) is mostly a failure token too,
# whose look-up in every case's text already weighs how rare it is; the tag adds that the
# case showed the code (its symptoms, not a check that mentions it). Scaled by rarity, a
# rare code outweighed everything else the log says (the PCIe ACS lines of a log whose
# `unhandled system error` many unrelated failures print).
CODE_WEIGHT = 1.0
# A component found by name only (context) counts this much of its weight, and only for a
# case that also has a signature.
CONTEXT_WEIGHT = 0.5
# A similar case of the first hit (`like_the_first`) scores at most this share of the first
# hit's score: it comes after the hit it is like.
LIKE_FIRST_CAP = 0.99
# A component version the log prints (`NCCL version 2.19.3`) inside a case's `affected`
# range: the case's failure is known on this version. Counts like a code name: it says the
# case could apply, not that the log shows its failure.
VERSION_WEIGHT = 2.0
# A case's score is multiplied by 1 + SEMANTIC_FACTOR * (semantic score of the log's evidence
# lines against the case's passages, about 0.3..0.9): cases sharing the same tags and tokens
# (a tie the case id used to break) are ordered by whether they tell the failure the lines
# show. Up to 1.5 every tuning log keeps its case first (both halves of eval/logs.json); at 2
# the text outweighs a shared Xid code. A third of that: it reorders near-ties, not evidence.
SEMANTIC_FACTOR = 0.5
SEMANTIC_CHARS = 2000  # of evidence lines read by the encoder (which reads 128 tokens anyway)
# In the ranking, a code name or an environment variable (`NAMING_EXTRACTORS`) weighs this
# share of a failure token as rare: it says which program ran (`loss_scaler`,
# `pretrain_gpt`, `deepspeed_training` in a stack), which any failure of that program shares,
# and weighed in full one rare code name outranked the cases showing the log's failure (an
# fp16 overflow log ranked a case of DeepSpeed's optimiser checkpoints first). And the code
# names and settings read on one line (a configuration line echoing twenty of them, a stack
# frame) count once, as the heaviest of them (`naming_part`): one line says one thing.
# Confidence is unchanged: it reads the full weights (`signature`), as calibrated.
# On the tuning logs (eval/logs.json) recall@5 0.961 -> 0.974 and MRR@10 0.918 -> 0.941 on
# SQLite (0.939 on PostgreSQL), on the validation logs 0.873 -> 0.902 and 0.971 -> 1.000 on
# both. Validation holds from 0.45 to 0.75 (0.4: 0.882); tuning recall@5 holds from 0.45 to
# 0.75 on SQLite but only to 0.5 on PostgreSQL, where one log whose case is fifth only as
# the first hit's similar case (the NVLS log, its case 18th on evidence) drops to sixth: a
# lighter first hit lifts its similar cases less. The line rule alone: 0.961 / 0.926.
# Settings (`name=value`, `--name`) keep their full weight, one line counting once: a
# configuration a log echoes is what a configuration case names (at half weight, tuning
# MRR@10 0.939 -> 0.920).
# Re-chosen once similar cases were corrected for hubness (`hubness.py`), which changed the
# first hits' stored similar cases: on both backends every tuning log with a case keeps one
# in its top 5 from 0.375 to 0.49 (recall@5 0.974; at 0.5 and over, PostgreSQL loses the
# NVLS log, 0.947; at 0.35 the vLLM MLA log's case falls from 2nd to 3rd), validation the
# same from 0.35 to 0.8 (recall@5 0.902, MRR@10 1.000; 1.0: 0.873 / 0.971): the middle of
# that range, where MRR@10 is also best (tuning 0.943 SQLite / 0.941 PostgreSQL, 0.939 /
# 0.939 at 0.5). The gain is that one log (its case 18th on evidence, see above): fragile.
NAMING_WEIGHT = 0.425
# A case sharing a GPU fault the driver reported (an Xid: `GPU has fallen off the bus`) with
# the log ranks this many times higher: the fault is the root of what follows, and the NCCL
# watchdog timeout it causes on the other ranks (they wait on the lost GPU's collective) is
# what any lost or hung rank ends in. Weighed alike, a log with an Xid 79 and then the
# watchdog's long lines ranked four cases of software hangs, three sharing only those lines
# and their words (`WorkNCCL`, `SeqNum`, `OpType`), above both cases quoting Xid 79
# (tests/search/logs/torchrun-xid79-then-nccl-watchdog.log: 5th and 6th; 1st and 2nd from
# 1.6, then the first one's similar cases, fleets' hardware failures). Ranking only: labels
# read the evidence. No tuning or validation figure moves from 1.6 to 3.0 (tuning log
# MRR@10 0.943, recall@5 0.974; validation 1.000 / 0.902 and 0.899 / 0.895; no strong hit
# for a log without a case); 2.0 keeps a margin over 1.6. InfiniBand completion errors as
# roots too (of the NCCL error they cause): no figure moved, not kept.
ROOT_FACTOR = 2.0
ROOT_KINDS = frozenset({"xid"})  # `patterns.EXTRACTORS` whose tokens are such a root


def naming_part(held: dict[str, float], line: str, weight: float) -> float:
    """What a naming token (a code name, environment variable or setting) of ranked `weight`,
    first read on `line`, adds to a case's ranking score, given the naming tokens that case
    already shares (`held`: first line -> the heaviest weight read there; updated): what it
    weighs over the heaviest of its line, so a line's naming tokens count as their heaviest
    whatever the order they are added in (`NAMING_WEIGHT`)."""
    before = held.get(line, 0.0)
    held[line] = max(before, weight)
    return max(weight - before, 0.0)


def ranked(scores: dict[str, float]) -> list[str]:
    """Case ids best first, scores rounded so that equal evidence ties on both backends (the
    sums' float order follows the database's row order), a tie to the lower id."""
    return sorted(scores, key=lambda c: (-round(scores[c], 9), c))


def like_the_first(scores: dict[str, float], first: str, alike: dict[str, float]) -> dict[str, float]:
    """The new scores of the first hit's similar cases (`alike`: case id -> similar-case score
    with `first`, 0..1, as stored by `similarity.py`): each gains the first hit's score times
    how alike the two are, up to `LIKE_FIRST_CAP` of the first hit's (it never passes the hit
    it is like). Empty when `first` has no stored list (pending after a bulk import).

    A log names its failure by the tokens of one report of it; the other reports of that
    failure tell it in their own words (the GB200 case whose NVLink error counters never
    moved, beside the one that quotes the log's Xid 149), so they share little of the log
    but much of the case it matches best. Only the log's candidates (cases sharing some
    evidence with it) move: a hit always shows what it shares with the log. On the tuning
    logs (eval/logs.json) recall@5 0.934 -> 0.961 and MRR@10 0.910 -> 0.918 (0.974 when
    cases sharing nothing with the log were listed too; half the gain 0.947 / 0.917; from
    the first three hits, 0.934), on the validation logs 0.868 -> 0.873 and 0.961 -> 0.971,
    and no log without a matching case got a strong hit (the label reads the evidence)."""
    top = scores[first]
    cap = LIKE_FIRST_CAP * top
    return {
        case_id: max(scores.get(case_id, 0.0), min(scores.get(case_id, 0.0) + similarity * top, cap))
        for case_id, similarity in alike.items()
        if case_id != first and case_id in scores
    }


def semantic_scores(
    lines: dict[str, list[int]], signature_lines: set[str], failure_lines: set[str], candidates: list[str]
) -> dict[str, float]:
    """Candidate case id -> semantic score of the log's evidence lines against its passages
    (`semantic.Vectors.case_scores`); empty without candidates or the encoder. The lines
    naming the failure come first, in log order, then those with only code names or
    settings, up to `SEMANTIC_CHARS`. One query (the candidates' stored vectors)."""
    if not candidates or not encoder.available():
        return {}
    ordered = evidence_lines(lines, signature_lines, failure_lines)
    text = "\n".join(shown_line(line) for line in ordered)[:SEMANTIC_CHARS]
    vector = query_vector(text) if text.strip() else None
    if vector is None:
        return {}
    return semantic_candidate_scores(vector, candidates)


@dataclass
class Tally:
    """Per case, the weight of the evidence it shares with a log as it is summed, and what
    that evidence is (for the hits' reasons, `log_hits.evidence_of`). Sums run in the order
    evidence is added (tokens, terms, versions, then common evidence): `ranked` rounds them,
    so the database's row order cannot break a tie."""

    findings: Findings
    total: int  # published cases (at least 1)
    signature: dict[str, float] = field(default_factory=dict)  # case id -> signature weight
    signature_count: dict[str, int] = field(default_factory=dict)  # case id -> signatures shared
    context: dict[str, float] = field(default_factory=dict)  # case id -> component names' weight
    # The ranking's view of naming tokens (`NAMING_WEIGHT`): case id -> first line -> the
    # heaviest ranked weight read there, and case id -> the signature weight not ranked.
    naming_lines: dict[str, dict[str, float]] = field(default_factory=dict)
    unranked: dict[str, float] = field(default_factory=dict)
    # Look-up position -> (token, the cases holding it, how many published cases do).
    tokens: dict[int, tuple[str, frozenset[str], int]] = field(default_factory=dict)
    terms_of: dict[str, list[int]] = field(default_factory=dict)  # case id -> its found terms
    versions_of: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # (component, version)
    generic: set[str] = field(default_factory=set)  # names of components found as context
    term_weight: dict[int, float] = field(init=False)  # term id -> its weight

    def __post_init__(self) -> None:
        by_id = self.findings.term_by_id
        self.term_weight = {
            term_id: CODE_WEIGHT
            if by_id[term_id].facet == Facet.ERROR_CODE
            else FACET_WEIGHTS.get(by_id[term_id].facet, 0.5)
            * math.log(1 + self.total / max(by_id[term_id].case_count, 1))
            for term_id in self.findings.term_evidence
        }

    def add_token(self, position: int, token: str, case_ids: list[str], count: int) -> None:
        """Failure `token` (looked up at `position`) is in the texts of `case_ids`, and of
        `count` published cases in all."""
        weight = TOKEN_WEIGHT * math.log(1 + self.total / count)
        self.tokens[position] = (token, frozenset(case_ids), count)
        evidence = self.findings.tokens[token]
        naming = evidence.kind in NAMING_EXTRACTORS or evidence.kind == "setting"
        ranked = weight * (NAMING_WEIGHT if evidence.kind in NAMING_EXTRACTORS else 1.0)
        line = evidence.lines[0][1] if evidence.lines else token
        for case_id in case_ids:
            self.signature[case_id] = self.signature.get(case_id, 0.0) + weight
            self.signature_count[case_id] = self.signature_count.get(case_id, 0) + 1
            if naming:
                added = naming_part(self.naming_lines.setdefault(case_id, {}), line, ranked)
                self.unranked[case_id] = self.unranked.get(case_id, 0.0) + weight - added

    def add_terms(self, pairs: Iterable[tuple[str, int]]) -> None:
        """Cases carrying found terms, as (case id, term id) pairs: a component found by its
        name only is context, every other term a signature."""
        for case_id, term_id in pairs:
            term = self.findings.term_by_id[term_id]
            weight = self.term_weight[term_id]
            if self.findings.is_context(term_id):
                self.context[case_id] = self.context.get(case_id, 0.0) + weight
                self.generic.add(term.name)
            else:
                self.signature[case_id] = self.signature.get(case_id, 0.0) + weight
                self.signature_count[case_id] = self.signature_count.get(case_id, 0) + 1
            self.terms_of.setdefault(case_id, []).append(term_id)

    def add_versions(self, affected: Iterable[tuple[str, str, str]]) -> None:
        """Cases whose `affected` ranges include a version the log prints, as (case id,
        component, version) (`log_versions.affected_by`)."""
        for case_id, name, version in affected:
            self.signature[case_id] = self.signature.get(case_id, 0.0) + VERSION_WEIGHT
            self.signature_count[case_id] = self.signature_count.get(case_id, 0) + 1
            self.versions_of.setdefault(case_id, []).append((name, version))

    def candidates(self, word_score: dict[str, float]) -> list[str]:
        """The cases with signature evidence, then those found by rare words only
        (`word_score`: case id -> weight of the rare words it shares)."""
        return [c for c in self.signature if self.signature[c] > 0] + [
            c for c in word_score if c not in self.signature
        ]

    def root_cases(self) -> set[str]:
        """The cases sharing a root fault with the log: a token of `ROOT_KINDS` (an Xid)."""
        return {
            case_id
            for token, cases, _ in self.tokens.values()
            if self.findings.tokens[token].kind in ROOT_KINDS
            for case_id in cases
        }

    def token_cases(self) -> list[tuple[str, frozenset[str], int]]:
        """(token, the cases holding it, how many published cases do), in look-up order."""
        return [self.tokens[p] for p in sorted(self.tokens)]


def candidate_scores(
    candidates: list[str],
    tally: Tally,
    word_score: dict[str, float],
    job: JobKind,
    kinds: dict[str, frozenset[str]],
    semantic: dict[str, float],
) -> tuple[dict[str, float], dict[str, float]]:
    """(case id -> ranking score, case id -> what it shares as its label compares it,
    `log_confidence.shared_weight`) of each of `candidates`: its signatures, plus
    `CONTEXT_WEIGHT` of its context, less what its naming tokens do not rank, plus its rare
    words (`word_score`), times its job-kind factor (`JobKind.factor` of its workloads,
    `kinds`), 1 + `SEMANTIC_FACTOR` times its semantic score (`semantic`, below 0 as 0) and
    `ROOT_FACTOR` when it shares a root fault with the log (`Tally.root_cases`)."""
    scores: dict[str, float] = {}
    shared_weights: dict[str, float] = {}
    root = tally.root_cases()
    for case_id in candidates:
        kind_factor = job.factor(kinds.get(case_id, frozenset()))
        semantic_factor = 1 + SEMANTIC_FACTOR * max(semantic.get(case_id, 0.0), 0.0)
        weight = tally.signature.get(case_id, 0.0) + CONTEXT_WEIGHT * tally.context.get(case_id, 0.0)
        shared_weights[case_id] = shared_weight(weight, kind_factor)
        ranked_weight = weight - tally.unranked.get(case_id, 0.0) + word_score.get(case_id, 0.0)
        root_factor = ROOT_FACTOR if case_id in root else 1.0
        scores[case_id] = ranked_weight * kind_factor * semantic_factor * root_factor
    return scores, shared_weights


def add_context_neighbours(
    scores: dict[str, float],
    shared_weights: dict[str, float],
    alike: dict[str, float],
    context: dict[str, float],
) -> None:
    """Add to the candidates (`scores` and `shared_weights`, updated in place) the first
    hit's similar cases (`alike`) that share only context with the log (`context`: case id
    -> the weight of the components the log names, `Tally.context`), scored as their context
    ranks (`CONTEXT_WEIGHT` of it), so that `lift_like_the_first` lifts them too.

    A report of the same failure told in other words may share nothing with the log but the
    component it names: the FlashAttention case whose CuTe backward corrupted dQ and dK
    silently, beside the flex_attention case quoting the log's settings (a hit shows the
    component's line; its label stays weak: no signature). On the tuning logs
    (eval/logs.json, SQLite) recall@5 0.974 -> 0.987, MRR@10 0.943 unchanged; validation
    unchanged (recall@5 0.902 and 0.895, MRR@10 1.000 and 0.899), no strong hit for a log
    without a case. Every similar case, whatever it shares, gave the same tuning recall@5
    (0.974 when the lift was chosen) with hits showing nothing of the log: not kept."""
    for case_id in alike:
        if case_id not in scores and context.get(case_id, 0.0) > 0:
            own = CONTEXT_WEIGHT * context[case_id]
            scores[case_id] = own
            shared_weights[case_id] = own


def lift_like_the_first(scores: dict[str, float], first: str, alike: dict[str, float]) -> set[str]:
    """Raise the scores (updated in place) of the candidates among the first hit's similar
    cases (`like_the_first`); the cases it lifted."""
    lifted: set[str] = set()
    for case_id, score in like_the_first(scores, first, alike).items():
        if score > scores[case_id]:
            lifted.add(case_id)
        scores[case_id] = score
    return lifted
