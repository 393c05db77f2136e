"""Log matching: pasted log text in, cases ranked by the failure signatures it contains.

Two kinds of evidence, both found in one pass over the text with RE2 (linear time, see
`patterns.py`):
- vocabulary terms: every symptom tag and component by name and synonyms (word-bounded;
  short upper-case forms such as `OOM` or `ECC` case-sensitive; never inside a source-file
  name, `proxy.cc:1391` being a place in NCCL's code, not the word proxy), plus each term's own
  `patterns` (symptom tags, components, root-cause categories and error codes; an error
  code by its patterns only, the ones that tag cases at import, `codes.CodeVocabulary`).
  A case scores for each found term it carries, weighted by facet and rarity: `facet
  weight * log(1 + N / n)`, an error code a flat `CODE_WEIGHT`; the error codes found are
  reported with their lines whether or not a case carries them (`LogReading.error_codes`).
- failure tokens (`patterns.EXTRACTORS`): Xid codes, NCCL results, CUDA errors, exception
  types, NCCL/CUDA environment variables, errno and signal names, known phrases, what a
  program could not do (`Failed to initialize NVML`) and the message after `fatal:`,
  `error:` or `panic:` (the last two looked up as phrases). Each token
  is looked up in the cases' full-text index in one query; a case scores
  `TOKEN_WEIGHT * log(1 + N / n)` for each token its text contains. In the ranking (not in
  confidence) a token that names a program's code or settings rather than a failure counts
  less, and such tokens read on one line count once (`NAMING_WEIGHT`, `_naming_part`).
Then a third, weaker kind, for the ranking only: the log's words that few cases contain
(`_rare_words`, looked up in the same full-text index). Confidence never reads them.
Each hit lists the lines that produced its evidence (line number, line, term or token).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import re2
from django.conf import settings
from django.db.models import OuterRef, Q, QuerySet, Subquery

from incidents import store_cache
from incidents.codes import natural_key
from incidents.id_lists import ids_subquery
from incidents.models import Case, CaseTerm, Facet, Term
from incidents.selectors.affected import cases_with_ranges
from incidents.selectors.stats import published_count
from incidents.selectors.vocabulary import terms_with_case_counts
from incidents.versions import range_verdict

from . import encoder, errnos
from .backends import Backend, atom_digest, get_backend
from .gate import one_at_a_place
from .hit_lines import context_shown
from .log_lines import MAX_LOG_BYTES, LineMatch, LogLines, shown_line
from .log_thresholds import THRESHOLDS, Thresholds
from .models import CaseNeighbour
from .patterns import (
    EXTRACTORS,
    GENERIC_TOKENS,
    NOT_WORDS,
    Extractor,
    blanked,
    compile_pattern,
    inside,
    not_word_spans,
    options,
    pattern_problem,
)
from .query import Atom, keeps_meaning
from .results import Confidence, FoundCode, LogHit, LogLine, LogReading, why_log_listed
from .semantic import candidate_scores, query_vector
from .text import STOP_WORDS, words

MAX_TOKENS = 40
MAX_ERROR_MESSAGES = 10  # of the MAX_TOKENS, messages read after `fatal:` / `error:` / `panic:`
LINES_PER_EVIDENCE = 20
MAX_LINES_PER_HIT = 50
# Of a line, the characters searched for where each piece of evidence is (`Shared.places`):
# evidence past them has no place, and counts as it did before places were read.
PLACE_CHARS = 10_000
TOKEN_WEIGHT = 1.2
FACET_WEIGHTS: dict[str, float] = {Facet.SYMPTOM: 1.0, Facet.ROOT_CAUSE: 0.8, Facet.COMPONENT: 0.5}
# A case carrying an error code the log shows gains this much, not scaled by rarity: the
# code's text (`ncclSystemError`, `unhandled system error`) is mostly a failure token too,
# whose look-up in every case's text already weighs how rare it is; the tag adds that the
# case showed the code (its symptoms, not a check that mentions it). Scaled by rarity, a
# rare code outweighed everything else the log says (the PCIe ACS lines of a log whose
# `unhandled system error` many unrelated failures print).
CODE_WEIGHT = 1.0
# Facets found by their patterns only: root causes have no name a log would print, and an
# error code's name (`Xid 79`) is one of the spellings its patterns already cover.
PATTERNS_ONLY = (Facet.ROOT_CAUSE, Facet.ERROR_CODE)
# A component found by name only (context) counts this much of its weight, and only for a
# case that also has a signature.
CONTEXT_WEIGHT = 0.5
# The log's kind of job against the case's workload (`environment.workload`): a case of
# that kind gains, a case only of the other kind loses unless a line names that kind alone.
# Losing it whatever the log showed ranked a vLLM host-memory leak (inference) tenth for the
# GRPO job whose vLLM rollouts leaked (training lines, and a vLLM engine line): on the tuning
# logs (eval/logs.json) recall@5 0.908 -> 0.934, MRR@10 0.904 -> 0.910, and the same at
# any KIND_MISMATCH from 0.5 to 1.0.
KIND_MATCH = 1.25
KIND_MISMATCH = 0.6
POSSIBLE_SIGNATURE = 2.0
# A similar case of the first hit (`_like_the_first`) scores at most this share of the first
# hit's score: it comes after the hit it is like.
LIKE_FIRST_CAP = 0.99
PUBLISHED = Case.Status.PUBLISHED
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
# Tokens every failure of their kind prints, whatever the failure: torchrun's wrapper and its
# summary fields, the CUDA and NCCL debugging hints. Two logs sharing them have not shown the
# same failure, so they are not looked up (`read_log`) and count for nothing in `confidence`.
BOILERPLATE = frozenset(
    t.lower()
    for t in (
        "ChildFailedError",
        "local_rank",
        "error_file",
        "CUDA_LAUNCH_BLOCKING",
        "TORCH_USE_CUDA_DSA",
        "NCCL_DEBUG",
        "TORCH_DISTRIBUTED_DEBUG",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING",
    )
)
# Extractors whose tokens name a setting or a place in code, not a failure.
NAMING_EXTRACTORS = frozenset({"identifier", "env"})
# In the ranking, a code name or an environment variable (`NAMING_EXTRACTORS`) weighs this
# share of a failure token as rare: it says which program ran (`loss_scaler`,
# `pretrain_gpt`, `deepspeed_training` in a stack), which any failure of that program shares,
# and weighed in full one rare code name outranked the cases showing the log's failure (an
# fp16 overflow log ranked a case of DeepSpeed's optimiser checkpoints first). And the code
# names and settings read on one line (a configuration line echoing twenty of them, a stack
# frame) count once, as the heaviest of them (`_naming_part`): one line says one thing.
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
# Rare words of the log (`_rare_words`): how many distinct words are looked up, the largest
# share of the published cases a word may be in to count, how many of the rarest count, and
# each one's weight (times log(1 + N / n), as a failure token's `TOKEN_WEIGHT`), and how many
# a case must share for them to count. Chosen on the tuning logs (eval/logs.json): log MRR@10
# 0.826 -> 0.898, recall@1 0.789 -> 0.868, recall@5 0.829 -> 0.882, no strong hit for a log
# without a case; 60 words looked up lost two of the gained logs; with one word enough,
# recall@5 was 0.908 but a lone shared word outranked cases carrying the log's Xid code.
WORD_LOOKUP = 150
RARE_SHARE = 0.02
RARE_WORDS = 30
WORD_WEIGHT = 0.4
MIN_RARE_WORDS = 2
# Evidence (a failure token, a term) in more than this many published cases is not returned
# case by case: what it adds goes to the cases the rarer evidence found and to its own first
# CANDIDATE_CAP cases by id, which fill the places after them (up to three more queries).
# The rows a log's matching brings into Python stay bounded as the store grows (an Xid code
# most of 100,000 cases quote was 47,000 rows; the database still reads its matches to count
# and sort them); below the cap nothing changes.
CANDIDATE_CAP = 1000
# The extractor of the message after `fatal:` / `error:` / `panic:` (capped, deduplicated).
ERROR_MESSAGE = "error-message"


# Each finds a line naming the kind from the line's start, so one match per line is read
# (`_job_kind` counts lines); no group captures, so RE2 need not track one along a long line.
_KIND_PATTERNS = {
    # The launcher's lines count too: a torchrun job's log may have no training word at all
    # (an NCCL watchdog timeout, then `torch.distributed.elastic...ChildFailedError` with its
    # `local_rank`), and read as no kind it ranked a vLLM (inference) hang first.
    "training": re2.compile(
        r"(?im)^[^\n]*?\b(?:epoch|iteration|global_step|train(?:ing|er)?|loss|optimizer|backward|"
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


def decode_log(text: str | bytes) -> str:
    """Text of at most `MAX_LOG_BYTES` UTF-8 bytes: undecodable bytes become U+FFFD,
    NUL and other control characters (but tabs and newlines) become spaces."""
    if isinstance(text, bytes):
        data = text[:MAX_LOG_BYTES]
    else:
        data = text.encode("utf-8", "replace")[:MAX_LOG_BYTES]
    decoded = data.decode("utf-8", "replace")
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", " ", decoded).replace("\r", "")


@dataclass
class _TermForm:
    term: Term
    form: str  # a name or synonym as written, or one of the term's own patterns
    pattern: bool  # `form` is one of the term's own patterns


@dataclass
class _Evidence:
    lines: list[tuple[int, str]] = field(default_factory=list)
    count: int = 0
    # How a token was found, the most telling way (`_stronger_kind`): the extractor's name
    # (`xid`, `exception`, `phrase`, `env`, `identifier`, ...) or `setting`.
    kind: str = ""
    # The job itself set this environment variable (`export CUDA_LAUNCH_BLOCKING=1`), as
    # opposed to a hint that mentions it (`consider passing CUDA_LAUNCH_BLOCKING=1`).
    set_by_job: bool = False
    # Where a token or version was read in each of its first lines (line -> [start, end)
    # spans of the extractor's whole match): its places (`Shared.places`). Terms, found by
    # a set of patterns that says which matched but not where, are searched again instead.
    at: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def add(self, number: int, line: str) -> None:
        self.count += 1
        if len(self.lines) < LINES_PER_EVIDENCE and (not self.lines or self.lines[-1][0] != number):
            self.lines.append((number, line))

    def read_at(self, line: str, span: tuple[int, int]) -> None:
        """Record that the evidence was read at `span` of `line` (its first lines, a few spans each)."""
        spans = self.at.get(line)
        if spans is None and len(self.at) < LINES_PER_EVIDENCE:
            spans = self.at[line] = []
        if spans is not None and len(spans) < LINES_PER_EVIDENCE and span not in spans:
            spans.append(span)


@dataclass(frozen=True)
class Shared:
    """One piece of evidence a case shares with the log, as `confidence` weighs it."""

    name: str
    # `token:<extractor>` (`token:xid`, `token:exception`, `token:identifier`, ...),
    # `pattern:<facet>` for a term found by one of its own patterns, `name:<facet>` for a
    # term found by its name or a synonym, `version:affected` for a component version the
    # log prints inside one of the case's affected ranges.
    kind: str
    cases: int  # published cases that share it
    # Where the log shows it: (line number, start, end) of each match in its lines (`_places`);
    # empty when its words are not found as written (an errno read from its number). Evidence
    # at a place stronger evidence already holds is that signature again (`_counted`).
    places: tuple[tuple[int, int, int], ...] = ()
    # For a symptom term: how many symptoms the case lists (0 when not known). A case listing
    # many is a survey of many failures (`Thresholds.survey_symptoms`).
    listed: int = 0


def _form_pattern(form: str) -> tuple[str, bool]:
    """An RE2 pattern finding `form` as written, and whether case is ignored."""
    escaped = re2.escape(form)
    start = r"\b" if form[:1].isalnum() else ""
    end = r"\b" if form[-1:].isalnum() else ""
    short_upper = len(form) <= 4 and form.isupper()
    return f"{start}{escaped}{end}", not short_upper


def _source_files(scanned: LogLines) -> dict[str, list[tuple[int, int]]]:
    """Line -> the spans of the source-file and host names in it (`patterns.NOT_WORDS`), for
    the lines that name one: one scan of the joined lines (`log_lines.py`)."""
    found: dict[str, list[tuple[int, int]]] = {}
    for index, match in scanned.matches(NOT_WORDS):
        found.setdefault(scanned.lines[index], []).append(match.span())
    return found


def _term_forms_in(
    line: str, matcher: Any, entries: list[_TermForm], source_files: list[tuple[int, int]] | None
) -> list[int]:
    """The indexes of `entries` (`_term_matcher`) found in `line`. A name or synonym counts
    only outside the source-file and host names of the line (`source_files`, its spans):
    `proxy.cc` is where NCCL's code is, and `gpu-node-023` a machine, not the word `GPU` (a
    synonym of NVIDIA GPU). A term's
    own patterns are read in the whole line, since they may name a file on purpose
    (Megatron-LM's, for `pretrain_gpt.py`)."""
    found = matcher.Match(line) or []
    if not found or not source_files:
        return found
    outside = set(matcher.Match(blanked(line, source_files)) or ())
    return [index for index in found if entries[index].pattern or index in outside]


def _term_matcher(terms: list[Term]):
    """One RE2 set of every term form and pattern; index -> (term, form or pattern).
    Compiling several hundred patterns costs tens of milliseconds, so the set is kept per
    distinct vocabulary (`_matcher_of`), which changes only when terms are edited."""
    spec = tuple((t.id, t.facet, t.name, tuple(t.synonyms), tuple(t.patterns)) for t in terms)
    matcher, forms = _matcher_of(spec)
    by_id = {t.id: t for t in terms}
    return matcher, [_TermForm(by_id[term_id], form, pattern) for term_id, form, pattern in forms]


@functools.lru_cache(maxsize=2)
def _matcher_of(spec: tuple[tuple[int, str, str, tuple[str, ...], tuple[str, ...]], ...]):
    matcher = re2.Set.SearchSet(options())
    forms: list[tuple[int, str, bool]] = []
    for term_id, facet, name, synonyms, patterns in spec:
        for form in [] if facet in PATTERNS_ONLY else [name, *synonyms]:
            if len(words(form)) == 0 or all(w.lower() in STOP_WORDS for w in words(form)):
                continue
            pattern, ignore_case = _form_pattern(form)
            matcher.Add(("(?i)" if ignore_case else "") + pattern)
            forms.append((term_id, form, False))
        for pattern in patterns:
            if pattern_problem(pattern) is None:
                matcher.Add("(?i)" + pattern)
                forms.append((term_id, pattern, True))
    if not forms:
        return None, forms
    matcher.Compile()
    return matcher, forms


@functools.lru_cache(maxsize=2)
def _version_matcher(names: tuple[tuple[str, str], ...]):
    """One RE2 pattern finding `<component name or synonym> [version|==|v|:] <version>` in
    a line (`NCCL version 2.19.3+cuda12.3`, `torch==2.7.0`, `vLLM v0.6.3`), or None; group
    1 the spelling, group 2 the version. `names`: (spelling, term name), longest first."""
    if not names:
        return None, {}
    alternatives = "|".join(re2.escape(spelling) for spelling, _ in names)
    # Never across a line break (`log_lines.py`): `[^\S\n]` for `\s`, `(?m)` for `^`.
    space = r"[^\S\n]"
    pattern = (
        rf"(?im)(?:^|[^A-Za-z0-9_\n])({alternatives})"
        rf"(?:{space}+version|{space}*==|{space}*:|{space}+v|{space}){space}*v?"
        r"(\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc|post|dev)\d*)?(?:\+[A-Za-z0-9.]+)?)\b"
    )
    return re2.compile(pattern, options()), {spelling.lower(): name for spelling, name in names}


# NVIDIA's NGC framework images are named `nvcr.io/nvidia/<framework>:<YY.MM>-...`: the tag
# is the container's monthly release (`pytorch:24.03` ships PyTorch 2.3.0a0), not the
# framework's version. Other NVIDIA images carry their own version (`nvidia/cuda:12.1.0`,
# `nvidia/gpu-operator:v23.9.1`), so only a YY.MM tag after `nvidia/<name>:` is skipped.
_MONTHLY_TAG = re.compile(r"\d{2}\.\d{2}")


def _is_container_release(line: str, match: Any) -> bool:
    """Whether a version match (`_version_matcher`: group 1 the name, group 2 the version)
    is an NGC framework image and its monthly release tag (`nvidia/pytorch:24.03`)."""
    separator = line[match.end(1) : match.start(2)].strip().rstrip("vV").strip()
    return (
        separator == ":"
        and bool(_MONTHLY_TAG.fullmatch(match.group(2)))
        and line[: match.start(1)].lower().endswith("nvidia/")
    )


def _versions(
    lines: dict[str, list[int]], terms: list[Term], scanned: LogLines | None = None
) -> dict[tuple[str, str], _Evidence]:
    """(component term name, version) -> the lines printing it, for every component of the
    vocabulary the log names with a version number next to it. `scanned`: the keys of
    `lines` joined (`log_lines.py`; joined here when not given)."""
    spellings = {
        (form, t.name)
        for t in terms
        if t.facet == Facet.COMPONENT
        for form in (t.name, *t.synonyms)
        if len(form) >= 3 and words(form)
    }
    matcher, by_spelling = _version_matcher(tuple(sorted(spellings, key=lambda p: (-len(p[0]), p))))
    found: dict[tuple[str, str], _Evidence] = {}
    if matcher is None:
        return found
    scanned = scanned or LogLines(lines)
    for line_index, match in scanned.matches(matcher):
        line = scanned.lines[line_index]
        name = by_spelling.get(match.group(1).lower())
        if name is None or _is_container_release(line, match):
            continue
        # A local build tag (`2.19.3+cuda12.3`) is the same release for the ranges.
        evidence = found.setdefault((name, match.group(2).split("+")[0]), _Evidence())
        evidence.read_at(line, match.span())
        for number in lines[line]:
            evidence.add(number, line)
    return found


def _affected_by(
    versions: dict[tuple[str, str], _Evidence], slug_of: dict[str, str]
) -> list[tuple[str, str, str]]:
    """(case id, component, version) for each published case with an `affected` range that
    includes a version the log prints. One query, only when the log prints one."""
    if not versions:
        return []
    slugs = {slug_of[name] for name, _ in versions}
    found = []
    for case_id, ranges in cases_with_ranges(slugs).values_list("id", "affected"):
        for item in ranges:
            for (name, version), _ in versions.items():
                if item.get("component") == name and range_verdict(item, version).verdict == "affected":
                    found.append((case_id, name, version))
    return sorted(set(found))


_EXTRACTORS = [(e, compile_pattern(e.pattern, ignore_case=e.ignore_case)) for e in EXTRACTORS]


def _extractor_set():
    """One RE2 set of every extractor: which of them can match a line, in one scan."""
    matcher = re2.Set.SearchSet(options())
    for extractor in EXTRACTORS:
        matcher.Add(("(?i)" if extractor.ignore_case else "") + extractor.pattern)
    matcher.Compile()
    return matcher


_EXTRACTOR_SET = _extractor_set()


def _physical_lines(text: str) -> list[str]:
    """The lines of `text`, split at "\n" only (as editors and `wc -l` count them): a final
    newline ends the last line rather than starting an empty one."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()
    return lines


def _unique_lines(text: str) -> dict[str, list[int]]:
    """Each distinct non-blank line -> its first line numbers (logs repeat lines a lot)."""
    seen: dict[str, list[int]] = {}
    for number, line in enumerate(_physical_lines(text), start=1):
        if not line.strip():
            continue
        numbers = seen.get(line)
        if numbers is None:
            seen[line] = [number]
        elif len(numbers) < LINES_PER_EVIDENCE:
            numbers.append(number)
    return seen


def _tokens(lines: dict[str, list[int]], scanned: LogLines | None = None) -> dict[str, _Evidence]:
    """Failure token (`patterns.EXTRACTORS`) -> its evidence. `scanned`: the keys of `lines`
    joined, which each extractor scans once (`log_lines.py`; joined here when not given)."""
    scanned = scanned or LogLines(lines)
    found: dict[str, _Evidence] = {}
    for line_index, matches in _matches_by_line(scanned):
        line = scanned.lines[line_index]
        numbers = lines[line]
        # A message after `error:` that another failure extractor already read (`CUDA error:
        # an illegal memory access ...`, a `failed to ...` message) is that token, not a second.
        read = [m.span() for e, m in matches if e.name not in (ERROR_MESSAGE, *NAMING_EXTRACTORS)]
        for extractor, match in matches:
            if extractor.name == ERROR_MESSAGE and any(
                start < match.end(1) and match.start(1) < end for start, end in read
            ):
                continue
            value = match.group(1) if match.lastindex else match.group(0)
            if extractor.name.startswith("errno"):
                found_errno = errnos.by_number(value) if value.isdigit() else errnos.by_name(value)
                if found_errno is None:
                    continue  # `EPOCH`, `[Errno 999]`: no C library error
                value = found_errno.name  # `[Errno 28]` is ENOSPC, as cases write it
            token = extractor.template.format(value.strip())
            if token in GENERIC_TOKENS:
                continue
            key = token if not extractor.ignore_case else token.lower()
            evidence = found.setdefault(key, _Evidence())
            evidence.kind = _stronger_kind(evidence.kind, _found_as(extractor.name, line, match))
            if extractor.name == "env" and _ASSIGNMENT.match(line[: match.end(1) + 1]):
                evidence.set_by_job = True
            evidence.read_at(line, match.span())
            for number in numbers:
                evidence.add(number, line)
    return found


# Extractors whose token's extent is a guess (the free text after `CUDA error:`, `error:` or
# a "could not" marker): in a typed query it runs on into the words after the message
# (`CUDA error: unknown error workCleanupLoop`), which no case quotes that way.
FREE_TEXT_EXTRACTORS = frozenset({"cuda-error", "message", ERROR_MESSAGE})


def signature_tokens(text: str) -> list[str]:
    """The failure tokens `text` shows that name a failure as a program prints it (`_tokens`,
    in the order found): codes, exception names, errno and signal names, NCCL results, known
    failure phrases (`Watchdog caught collective operation timeout`); not boilerplate, code
    names or settings, which do not say what failed, nor free text (`FREE_TEXT_EXTRACTORS`)."""
    return [
        token
        for token, evidence in _tokens(_unique_lines(text)).items()
        if evidence.kind not in (*NAMING_EXTRACTORS, "setting", *FREE_TEXT_EXTRACTORS)
        and token.lower() not in BOILERPLATE
        and words(token)
    ]


def _matches_by_line(scanned: LogLines) -> Iterator[tuple[int, list[tuple[Extractor, LineMatch]]]]:
    """Each line with a failure token, in order, with its matches by extractor (in
    `EXTRACTORS` order), then by place in the line. The extractors' scans are merged as
    they go, so one line's matches are held at a time (a megabyte of identifiers is
    hundreds of thousands of matches)."""

    def stream(order: int) -> Iterator[tuple[int, int, Extractor, LineMatch]]:
        extractor, compiled = _EXTRACTORS[order]
        for line_index, match in scanned.matches(compiled):
            yield line_index, order, extractor, match

    streams = [stream(order) for order in sorted(_EXTRACTOR_SET.Match(scanned.text) or ())]
    merged = heapq.merge(*streams, key=lambda item: (item[0], item[1]))
    for line_index, items in itertools.groupby(merged, key=lambda item: item[0]):
        yield line_index, [(extractor, match) for _, _, extractor, match in items]


# An environment variable given a value where a command starts: `export X=1`, a shell
# trace (`+ export X=1`), a prompt (`$ X=1 python ...`), a prefix before other assignments.
_ASSIGNMENT = re2.compile(
    r"^\s*(?:[+$#>]+\s*)?(?:export\s+|env\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*[A-Z][A-Z0-9_]*=$"
)


# How a token was found, weakest first: as a setting (`tensor_parallel_size=4`,
# `--nproc_per_node=8`), a code name, an environment variable, a message after `error:`
# (capped, `MAX_ERROR_MESSAGES`), an extractor of failures.
_KIND_ORDER = ("", "setting", "identifier", "env", ERROR_MESSAGE)


def _found_as(extractor: str, line: str, match) -> str:
    """The extractor's name, or `setting` for a name given a value (`name=...`, `--name`):
    the configuration a log echoes, which any log of that program shares."""
    start, end = match.span(1) if match.lastindex else match.span()
    if extractor in NAMING_EXTRACTORS and (
        line[end : end + 1] == "=" or line[max(0, start - 2) : start] == "--"
    ):
        return "setting"
    return extractor


_KIND_RANK = {kind: rank for rank, kind in enumerate(_KIND_ORDER)}


def _stronger_kind(old: str, new: str) -> str:
    strongest = len(_KIND_ORDER)  # an extractor of failures
    return new if _KIND_RANK.get(new, strongest) >= _KIND_RANK.get(old, strongest) else old


def match_log(text: str | bytes, *, limit: int = 10) -> list[LogHit]:
    """Rank published cases by the failure signatures found in pasted log `text`.

    The hits of `read_log` (see there); kept for callers that need only them.
    """
    return read_log(text, limit=limit).hits


def _kind_lines(scanned: LogLines) -> dict[str, set[int]]:
    """Kind of job -> the indexes of the log's distinct lines (`scanned`) that name it and
    not the other kind: a training loop's `step 1200 | loss 2.31 | tokens/s 412873` names
    both (throughput is printed by training and serving alike), and its many such lines
    read as inference when they counted."""
    found = {kind: scanned.lines_matching(pattern) for kind, pattern in _KIND_PATTERNS.items()}
    both = found["training"] & found["inference"]
    return {kind: lines - both for kind, lines in found.items()}


def _job_kind(scanned: LogLines, found: dict[str, set[int]] | None = None) -> str | None:
    """ "training" or "inference" when the log's distinct lines (`scanned`, or their
    `_kind_lines`) clearly say which, else None."""
    found = found if found is not None else _kind_lines(scanned)
    training, inference = len(found["training"]), len(found["inference"])
    if training >= 1 and training >= 2 * inference:
        return "training"
    if inference >= 1 and inference >= 2 * training:
        return "inference"
    return None


def _unit(item: Shared, total: int, thresholds: Thresholds) -> tuple[int, bool]:
    """(units, whether it names the failure) of one piece of shared evidence; see
    `specific_units`. Code names and environment variables count but do not name a failure:
    two logs of the same program share them whatever went wrong."""
    how, _, what = item.kind.partition(":")
    if how == "token":
        if item.name.lower() in BOILERPLATE or what == "setting":
            return 0, False
        if what in NAMING_EXTRACTORS:
            return 1, False
        return (1 if item.cases > thresholds.common_token * total else 2), True
    if what == Facet.SYMPTOM and item.listed > thresholds.survey_symptoms:
        return 0, False  # one of the many failures a survey lists
    if what in (Facet.SYMPTOM, Facet.ROOT_CAUSE) and item.cases <= thresholds.generic_term * total:
        return 1, True
    if what == Facet.ERROR_CODE:
        return 1, True  # a code the case carries, found by its own patterns: as a specific symptom
    if how == "version":
        return 1, False  # the failure is known on this version: the case may apply
    return 0, False


def _free_lines(places: tuple[tuple[int, int, int], ...], held: dict[int, list[tuple[int, int]]]) -> set[int]:
    """The lines where a piece at `places` shares no place with the pieces `held` (line
    number -> their spans there): each place compared with the spans of its own line only."""
    taken = {n for n, start, end in places if any(start < b and a < end for a, b in held.get(n, ()))}
    return {n for n, _, _ in places} - taken


@functools.lru_cache(maxsize=32)  # confidence asks twice per hit (specific_units, names_the_failure)
def _counted(shared: tuple[Shared, ...], total: int, thresholds: Thresholds) -> list[tuple[int, bool]]:
    """(units, names the failure) of each piece of `shared` that counts for confidence, once
    per signature: the pieces are taken strongest first (most units, then one naming the
    failure, then in order), and a piece that shares a place (`Shared.places`: a span of a
    line) with a piece taken before is that signature again on that line. It counts only
    when it shows on some other line on its own. A code and its own phrase on one line (the
    watchdog's `Watchdog caught collective operation timeout`, both a failure token and the
    ProcessGroupNCCL code's pattern, and its `WorkNCCL(...Timeout(ms)...)` after it) are one
    signature; `Xid 79` and `fallen off the bus` on one line, two places, are two; so is the
    code on its next line (`Some NCCL operations have failed or timed out`). A piece with no
    place (its words not found as written) counts as before. Pieces that count for nothing
    hold no place."""
    units = sorted(
        ((*_unit(item, total, thresholds), index) for index, item in enumerate(shared)),
        key=lambda u: (-u[0], not u[1], u[2]),
    )
    held: dict[int, list[tuple[int, int]]] = {}
    counted = []
    for n, failure, index in units:
        places = shared[index].places
        if n == 0 or (places and not _free_lines(places, held)):
            continue
        for number, start, end in places:
            held.setdefault(number, []).append((start, end))
        counted.append((n, failure))
    return counted


def specific_units(shared: tuple[Shared, ...], total: int, thresholds: Thresholds = THRESHOLDS) -> int:
    """How specifically the evidence a case shares with a log names one failure.

    2 for a failure token (error code, NCCL result, CUDA error, exception type, errno or
    signal name, error phrase) in few cases, 1 when it is in many (`timed out`); 1 for a
    code name (`save_checkpoint`, `distributed_c10d`), an environment variable, an error code
    the case carries found by its patterns, or a symptom or root cause that is not on most
    cases; 0 for boilerplate (`BOILERPLATE`), a setting
    the log echoes (`enforce_eager=False`), a generic symptom (Training job failure), a
    symptom of a case that lists more than `thresholds.survey_symptoms` (a census of a
    platform's incidents shares `Out of memory` and `NCCL timeout` with most failure logs)
    and any component (NCCL, PyTorch, vLLM: context, not a failure). Evidence at a place
    that stronger evidence holds counts nothing more (`_counted`).
    """
    return sum(n for n, _ in _counted(shared, total, thresholds))


def names_the_failure(shared: tuple[Shared, ...], total: int, thresholds: Thresholds = THRESHOLDS) -> bool:
    """Whether at least two pieces of the shared evidence count (`specific_units`) and one
    of them names the failure (a failure token, an error code, a specific symptom or root
    cause), not only code names: one rare token alone is a coincidence as often as not (an
    exception type one unrelated case quotes), and `output_dir` with `save_checkpoint` says
    the same program ran, not that it failed the same way. Two pieces at one place of the
    log (a code and its own phrase) are one (`_counted`).

    And the failure named by more than one common word of its kind: by a piece that few
    cases share (`thresholds.common_token`: a rare error token, or a code, symptom or root
    cause on few cases; found at a place another piece holds, it still says which failure
    that signature is), or by two pieces at different places. One common failure word
    (`NCCL error`, `timed out`, `Loss spike`) beside a code name (`all_reduce_perf`,
    `grad_norm`) is what any log of that kind of failure shares with any case of it: on the
    tuning logs (eval/logs.json) that made 8 of the 36 hits that are not relevant but had
    the evidence of a strong one (all but their score against the best hit's), one of them
    labelled strong, and none of the relevant ones."""
    counted = _counted(shared, total, thresholds)
    if len(counted) < 2 or not any(failure for _, failure in counted):
        return False
    named = sum(1 for _, failure in counted if failure)
    return named >= 2 or any(
        _unit(item, total, thresholds)[1] and item.cases <= thresholds.common_token * total for item in shared
    )


def confidence(
    signature: float,
    signatures: int,
    score: float,
    top: float,
    *,
    shared: tuple[Shared, ...] = (),
    total: int = 1,
    thresholds: Thresholds = THRESHOLDS,
) -> Confidence:
    """strong / possible / weak for a log hit (`Thresholds` chosen on the tuning logs,
    eval/logs.json, with and without a matching case: `eval/calibrate.py --logs`).

    strong needs at least two signatures (error codes, tokens, symptom or root-cause terms,
    components found by their own patterns; never a bare component name) weighing
    `thresholds.signature`, a score close to the best hit's, and evidence that names the
    failure specifically (`specific_units` of the `shared` evidence reaching
    `thresholds.specific`, from two pieces of which one names the failure, by a piece few
    cases share or by two pieces, `names_the_failure`): a rare error token with a code name
    or a specific symptom, or two specific symptoms; not code names alone, nor one common
    failure word beside them.
    Boilerplate (torchrun's ChildFailedError, the CUDA_LAUNCH_BLOCKING hint), the settings
    a log echoes, a generic symptom, a survey's symptoms (`Thresholds.survey_symptoms`) or
    component names fit many unrelated logs: possible at most. So does the NCCL watchdog's
    timeout alone, what any hang ends in: its code, `NCCL timeout` and `timed out` weigh
    7 to 8 at 173 cases, under `thresholds.signature` unless more of the case shows.
    """
    if (
        specific_units(shared, total, thresholds) >= thresholds.specific
        and names_the_failure(shared, total, thresholds)
        and signatures >= 2
        and signature >= thresholds.signature
        and score >= thresholds.share_of_top * top
    ):
        return "strong"
    if signature >= POSSIBLE_SIGNATURE:
        return "possible"
    return "weak"


class _Spans:
    """Where names (terms by their forms and patterns `patterns`, tokens by their words) are
    in lines, each name searched for in each line once: a log's hits show most of the same
    lines (every case with the log's Xid code, its Xid lines)."""

    def __init__(self, patterns: dict[str, list[tuple[str, bool]]]):
        self.patterns = patterns  # name -> (RE2 pattern, whether it is a name or synonym)
        self._found: dict[tuple[str, str], list[tuple[int, int]]] = {}

    def places(self, line: str, name: str) -> list[tuple[int, int]]:
        """The [start, end) spans of `name` in `line`, unmerged."""
        key = (line, name)
        if key not in self._found:
            self._found[key] = self._search(line, name)
        return self._found[key]

    def of(self, line: str, names: list[str]) -> tuple[tuple[int, int], ...]:
        """The merged [start, end) spans of `names` in `line`, in order."""
        found: list[tuple[int, int]] = []
        for name in names:
            found.extend(self.places(line, name))
        merged: list[tuple[int, int]] = []
        for start, end in sorted(s for s in found if s[1] > s[0]):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return tuple(merged)

    def _search(self, line: str, name: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        # A token (no patterns) is searched by its words, where it was read.
        searched = self.patterns.get(name) or [
            (r"(?i)" + r"\W+".join(re2.escape(w) for w in words(name)), False)
        ]
        files: list[tuple[int, int]] | None = None
        for pattern, form in searched:
            try:
                compiled = _compiled(pattern)
            except re2.error:
                continue
            spans = [m.span() for m in compiled.finditer(line)]
            if form and spans:
                # A name is not read inside a source-file or host name (`_term_forms_in`):
                # not shown there.
                files = not_word_spans(line) if files is None else files
                spans = [span for span in spans if not inside(span, files)]
            found.extend(spans)
        return found


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str):
    return re2.compile(pattern, options())


def read_log(text: str | bytes, *, limit: int = 10) -> LogReading:
    """Rank published cases by the failure signatures found in pasted log `text`, and say
    what was read.

    `text` may be str or bytes, up to 1 MB (`MAX_LOG_BYTES`; longer text is cut), any
    encoding garbage tolerated. Signatures are error codes and tokens (`patterns.EXTRACTORS`),
    symptom and root-cause terms, and components found by their own patterns; a component
    found only by its name (`NCCL`, `PyTorch`, `CUDA`, `vLLM`) is context: it adds weight to
    a case that has a signature, never a hit by itself. The kind of job the log shows
    (training or inference, `_job_kind`) favours cases of that kind and disfavours cases
    only of the other, unless some line of the log names the other kind alone. In the
    ranking, code names and environment variables weigh `NAMING_WEIGHT` of a failure token,
    and the code names and settings of one line count once (`_naming_part`); confidence reads
    their full weight.

    Returns at most `limit` hits, best first, each with its score, a confidence label
    (`confidence`), each matched line once with all the terms it matched and their spans
    (`LogHit.lines`, at most `MAX_LINES_PER_HIT`) and the names shared with the log; plus
    how many lines were read, blank, repeated, and of the distinct others how many carried a
    signature, how many only context a hit shares (a component's name, a rare word, a
    version) and how many nothing (`LogReading`: those five add up to the lines read, and
    every line a hit lists is a signature or a context line). Never raises on odd input.

    Candidates sharing the same evidence are told apart by the semantic score of the log's
    evidence lines against each case's passages (`SEMANTIC_FACTOR`, `_semantic_scores`).
    Then the candidates among the first hit's stored similar cases gain its score times how
    alike the two are, staying after it (`_like_the_first`): other reports of the failure
    the log shows, told in other words. This reads no evidence, so no label changes.

    Time is linear in the size of the text (RE2), plus one encoding of at most
    `SEMANTIC_CHARS` of its evidence lines. A component version the log prints next to the
    component's name (`NCCL version 2.19.3`) that falls inside a case's `affected` range is
    one more, weak, piece of evidence for that case (`VERSION_WEIGHT`; one more query when
    the log prints such a version). Words of the log that few cases contain (`_rare_words`)
    add to the ranking score, not to the confidence. Queries: a fixed 9 (terms with case
    counts, number of published cases, token look-up in the full-text index of published
    cases, the (case, term) pairs of the found terms, the rare words, the candidates'
    job-kind topics, the candidates' passage vectors, the hits' cases with the first hit's
    similar cases, and their terms; 8
    when no word of the log qualifies for the rare-word look-up); 2 when nothing
    identifying is found. Evidence in more than `CANDIDATE_CAP` cases is scored only for the
    cases the rarer evidence found and its own first `CANDIDATE_CAP` cases by id: up to four
    more queries (the common terms' first cases, the common tokens' counts, none when kept
    for this store generation by `store_cache`, their candidates, the common terms'
    candidates), so the rows returned stay bounded as the store grows. At most
    `settings.SEARCH_CONCURRENCY` run at once in a process (`gate.py`).
    """
    with one_at_a_place():
        return _read_log(text, limit)


def _read_log(text: str | bytes, limit: int) -> LogReading:
    text = decode_log(text)
    all_lines = _physical_lines(text)
    lines = _unique_lines(text)
    blank = sum(1 for line in all_lines if not line.strip())
    repeated = len(all_lines) - blank - len(lines)
    scanned = LogLines(lines)
    kind_lines = _kind_lines(scanned)
    kind = _job_kind(scanned, kind_lines)
    # A log with lines of each kind alone (a GRPO job whose rollouts run a vLLM engine: its
    # `init engine (... create kv cache ...)` line names no training word) is mostly one
    # kind but shows the other: a case of that other kind only may be its failure, so it is
    # not disfavoured. A line naming both counts for neither (`_kind_lines`).
    both_kinds = bool(kind_lines["training"]) and bool(kind_lines["inference"])

    terms = terms_with_case_counts([Facet.SYMPTOM, Facet.COMPONENT, Facet.ROOT_CAUSE, Facet.ERROR_CODE])
    matcher, entries = _term_matcher(terms)
    term_evidence: dict[int, _Evidence] = {}
    by_pattern: set[int] = set()  # terms found by one of their own patterns
    signature_lines: set[str] = set()
    # The lines the reading counts as carrying a signature: a line naming only components
    # (`NCCL INFO NCCL version 2.18.1`, `Using PyTorch 2.1.0 on NVIDIA GPU`) says what ran,
    # not what failed, so it is not one (it still weighs as context, `is_context`).
    counted_lines: set[str] = set()
    if matcher is not None:
        source_files = _source_files(scanned)
        for line, numbers in lines.items():
            for index in _term_forms_in(line, matcher, entries, source_files.get(line)):
                entry = entries[index]
                evidence = term_evidence.setdefault(entry.term.id, _Evidence())
                if entry.pattern:
                    by_pattern.add(entry.term.id)
                signature_lines.add(line)
                if entry.term.facet != Facet.COMPONENT:
                    counted_lines.add(line)
                for number in numbers:
                    evidence.add(number, line)
    failure_lines = set(signature_lines)  # lines naming a term, or a failure token (below)
    token_evidence = _tokens(lines, scanned)
    version_evidence = _versions(lines, terms, scanned)
    for evidence in token_evidence.values():
        signature_lines.update(line for _, line in evidence.lines)
        counted_lines.update(line for _, line in evidence.lines)
        if evidence.kind not in (*NAMING_EXTRACTORS, "setting"):
            failure_lines.update(line for _, line in evidence.lines)

    codes = tuple(
        FoundCode(term=t, line_numbers=tuple(n for n, _ in term_evidence[t.id].lines))
        for t in sorted(
            (t for t in terms if t.facet == Facet.ERROR_CODE and t.id in term_evidence),
            key=lambda t: (natural_key(t.vendor or ""), natural_key(t.name)),
        )
    )

    def reading(
        hits: list[LogHit], generic: tuple[str, ...] = (), shared: frozenset[str] = frozenset()
    ) -> LogReading:
        """What was read, each distinct non-blank line counted once as carrying a signature,
        as context that a hit shares (`shared`: every line a hit lists, signature or not), or
        as ignored, so that no line a hit shows is also counted as "nothing the cases know"."""
        context_lines = shared - counted_lines
        return LogReading(
            error_codes=codes,
            hits=hits,
            lines_read=len(all_lines),
            lines_blank=blank,
            lines_repeated=max(repeated, 0),
            lines_with_signature=len(counted_lines),
            lines_context=len(context_lines),
            lines_ignored=len(lines) - len(counted_lines) - len(context_lines),
            job_kind=kind,
            generic_only=generic,
        )

    if not term_evidence and not token_evidence and not version_evidence:
        return reading([])

    total = max(published_count(), 1)
    signature: dict[str, float] = {}
    signature_count: dict[str, int] = {}
    context: dict[str, float] = {}
    term_by_id = {t.id: t for t in terms}

    # Boilerplate is not looked up: a token every failure of its kind prints would rank the
    # one case that happens to quote it (ChildFailedError) above the failure's own cases.
    # A debugging variable the job itself set (`export CUDA_LAUNCH_BLOCKING=1`) is looked
    # up: it changes how the job runs, and cases about that change name it. Found as a
    # setting, it still counts for nothing in `confidence`. A
    # code name that is mostly stop words (`NO_OTHER_FAILURES` in torchrun's summary) would
    # be the bare word `failures` on PostgreSQL, which drops stop words: left out on both.
    searchable = [
        t
        for t, evidence in token_evidence.items()
        if (t.lower() not in BOILERPLATE or evidence.set_by_job)
        and (evidence.kind not in ("identifier", "setting") or keeps_meaning(Atom(tuple(words(t)))))
    ]
    # Messages after `error:` are many in a noisy log and longer than any code: only the
    # first MAX_ERROR_MESSAGES of them (in log order) are looked up, in at most that many of
    # the MAX_TOKENS places, so sixty ERROR lines cannot crowd an Xid code or an exception
    # name out; the other tokens keep the rest, longest first as before.
    messages = [t for t in searchable if token_evidence[t].kind == ERROR_MESSAGE][:MAX_ERROR_MESSAGES]
    others = sorted(
        (t for t in searchable if token_evidence[t].kind != ERROR_MESSAGE),
        key=lambda t: (-len(words(t)), t),
    )
    tokens = others[: MAX_TOKENS - len(messages)] + messages
    atoms = [Atom(tuple(words(t))) for t in tokens]
    usable = [i for i, a in enumerate(atoms) if a.words]
    backend = get_backend()
    # Evidence in more than CANDIDATE_CAP cases is not read case by case: its cases are
    # those the rarer evidence found and its own first ones (`if common_atoms or ...`, below).
    hits_by_atom: dict[int, list[str]] = {}
    for case_id, position in backend.capped_atom_hits([atoms[i] for i in usable], CANDIDATE_CAP):
        hits_by_atom.setdefault(position, []).append(case_id)
    common_atoms = [p for p, case_ids in hits_by_atom.items() if len(case_ids) > CANDIDATE_CAP]
    # Scores are summed for every case; what each case shares (`reasons`, `Shared`) is built
    # for the hits only (`evidence_of`, below): a broad log has thousands of candidates.
    found_tokens: dict[int, tuple[str, frozenset[str], int]] = {}  # position -> (token, its cases, how many)
    # The ranking's view of naming tokens (`NAMING_WEIGHT`): case id -> first line -> the
    # heaviest ranked weight read there, and case id -> the signature weight not ranked.
    naming_lines: dict[str, dict[str, float]] = {}
    unranked: dict[str, float] = {}

    def add_token(position: int, case_ids: list[str], count: int) -> None:
        token = tokens[usable[position]]
        weight = TOKEN_WEIGHT * math.log(1 + total / count)
        found_tokens[position] = (token, frozenset(case_ids), count)
        evidence = token_evidence[token]
        naming = evidence.kind in NAMING_EXTRACTORS or evidence.kind == "setting"
        ranked = weight * (NAMING_WEIGHT if evidence.kind in NAMING_EXTRACTORS else 1.0)
        line = evidence.lines[0][1] if evidence.lines else token
        for case_id in case_ids:
            signature[case_id] = signature.get(case_id, 0.0) + weight
            signature_count[case_id] = signature_count.get(case_id, 0) + 1
            if naming:
                added = _naming_part(naming_lines.setdefault(case_id, {}), line, ranked)
                unranked[case_id] = unranked.get(case_id, 0.0) + weight - added

    for position, case_ids in hits_by_atom.items():
        if position not in common_atoms:
            add_token(position, case_ids, len(case_ids))

    # Which published cases carry the found terms (every facet, root causes included): one
    # query of plain (case, term) pairs; no case objects yet. Read by term with each case's
    # status, kept in Python: these terms are on at most CANDIDATE_CAP published cases each
    # (and the few of other statuses), and asked for published cases, SQLite's planner read
    # every published case and looked each up (95 ms at 100,000 cases for a term on 3 of
    # them, against under 1 ms).
    found = list(term_evidence)
    common_terms = [t for t in found if term_by_id[t].case_count > CANDIDATE_CAP]
    pairs = (
        (case_id, term_id)
        for case_id, term_id, status in CaseTerm.objects.filter(
            term_id__in=[t for t in found if t not in common_terms]
        )
        .order_by()
        .values_list("case_id", "term_id", "case__status")
        if status == Case.Status.PUBLISHED
    )
    term_weight = {
        term_id: CODE_WEIGHT
        if term_by_id[term_id].facet == Facet.ERROR_CODE
        else FACET_WEIGHTS.get(term_by_id[term_id].facet, 0.5)
        * math.log(1 + total / max(term_by_id[term_id].case_count, 1))
        for term_id in found
    }
    generic: set[str] = set()
    terms_of: dict[str, list[int]] = {}  # case id -> its found terms
    found_order = {term_id: n for n, term_id in enumerate(found)}  # as first seen in the log

    def is_context(term_id: int) -> bool:
        """A component found by its name only: context, not a signature."""
        return term_by_id[term_id].facet == Facet.COMPONENT and term_id not in by_pattern

    def add_terms(pairs: Iterable[tuple[str, int]]) -> None:
        for case_id, term_id in pairs:
            term = term_by_id[term_id]
            weight = term_weight[term_id]
            if is_context(term_id):
                context[case_id] = context.get(case_id, 0.0) + weight
                generic.add(term.name)
            else:
                signature[case_id] = signature.get(case_id, 0.0) + weight
                signature_count[case_id] = signature_count.get(case_id, 0) + 1
            terms_of.setdefault(case_id, []).append(term_id)

    add_terms(pairs)

    word_score, word_reasons = _rare_words(lines, failure_lines, signature_lines, total)
    slug_of = {t.name: t.slug for t in terms if t.facet == Facet.COMPONENT}
    versions_of: dict[str, list[tuple[str, str]]] = {}
    for case_id, name, version in _affected_by(version_evidence, slug_of):
        signature[case_id] = signature.get(case_id, 0.0) + VERSION_WEIGHT
        signature_count[case_id] = signature_count.get(case_id, 0) + 1
        versions_of.setdefault(case_id, []).append((name, version))

    def evidence_of(case_id: str) -> tuple[list[tuple[str, _Evidence]], list[Shared]]:
        """What `case_id` shares with the log: (name, evidence) in the order found (tokens,
        terms, versions), and the same as `Shared` for `confidence`."""
        named: list[tuple[str, _Evidence]] = []
        shared: list[Shared] = []
        for token, cases, count in token_cases:
            if case_id in cases:
                evidence = token_evidence[token]
                named.append((token, evidence))
                shared.append(Shared(token, f"token:{evidence.kind}", count, places_of(token, evidence)))
        for term_id in sorted(terms_of.get(case_id, ()), key=found_order.__getitem__):
            term = term_by_id[term_id]
            evidence = term_evidence[term_id]
            # A code spelled as a failure token the case already matched (`Xid 79`) is that
            # signature: the hit names it once, on the token's lines.
            if term.facet != Facet.ERROR_CODE or all(n.lower() != term.name.lower() for n, _ in named):
                named.append((term.name, evidence))
            how = "pattern" if term_id in by_pattern else "name"
            listed = symptoms_listed.get(case_id, 0) if term.facet == Facet.SYMPTOM else 0
            shared.append(
                Shared(
                    term.name, f"{how}:{term.facet}", term.case_count, places_of(term.name, evidence), listed
                )
            )
        for name, version in versions_of.get(case_id, ()):
            evidence = version_evidence[(name, version)]
            named.append((f"{name} {version}", evidence))
            shared.append(
                Shared(f"{name} {version}", "version:affected", 1, places_of(f"{name} {version}", evidence))
            )
        return named, shared

    def scored() -> list[str]:
        """The cases with signature evidence, then those found by rare words only."""
        return [c for c in signature if signature[c] > 0] + [c for c in word_score if c not in signature]

    candidates = scored()
    if common_atoms or common_terms:
        # Cases only common evidence names fill the places after those the rarer evidence
        # found: its first CANDIDATE_CAP cases by id (read already for tokens; one query for
        # terms). Which of them is best is then scored as for every candidate.
        filler = {c for p in common_atoms for c in hits_by_atom[p][:CANDIDATE_CAP]}
        signature_terms = [t for t in common_terms if not is_context(t)]
        if signature_terms:
            filler.update(
                CaseTerm.objects.filter(case__in=Case.objects.published(), term_id__in=signature_terms)
                .order_by("case_id")
                .values_list("case_id", flat=True)
                .distinct()[:CANDIDATE_CAP]
            )
        candidates = list(dict.fromkeys([*candidates, *sorted(filler)]))
        common = [atoms[usable[p]] for p in common_atoms]
        counts = _cases_containing(backend, common)
        among: dict[int, list[str]] = {}
        for case_id, index in backend.atom_hits_among(common, candidates):
            among.setdefault(common_atoms[index], []).append(case_id)
        for index, position in enumerate(common_atoms):
            add_token(position, among.get(position, []), max(counts.get(index, 0), 1))
        add_terms(
            CaseTerm.objects.filter(term_id__in=common_terms, case_id__in=ids_subquery(candidates))
            .order_by()
            .values_list("case_id", "term_id")
        )
        generic.update(term_by_id[t].name for t in common_terms if is_context(t))
        candidates = scored()
    token_cases = [found_tokens[p] for p in sorted(found_tokens)]
    kinds = _workload_kinds(candidates) if candidates else {}
    semantic = _semantic_scores(lines, signature_lines, failure_lines, candidates)
    scores: dict[str, float] = {}
    # What each case shares with the log, which its label reads (`confidence`): see `_shared_weight`.
    shared_weights: dict[str, float] = {}
    for case_id in candidates:
        kind_factor = _kind_factor(kind, kinds.get(case_id, frozenset()), both_kinds)
        semantic_factor = 1 + SEMANTIC_FACTOR * max(semantic.get(case_id, 0.0), 0.0)
        weight = signature.get(case_id, 0.0) + CONTEXT_WEIGHT * context.get(case_id, 0.0)
        shared_weights[case_id] = _shared_weight(weight, kind_factor)
        ranked_weight = weight - unranked.get(case_id, 0.0) + word_score.get(case_id, 0.0)
        scores[case_id] = ranked_weight * kind_factor * semantic_factor

    if limit <= 0 or not scores:
        return reading([], tuple(sorted(generic)))
    # The RE2 patterns of the terms found, by name (compiled once each, `_compiled`): where
    # each piece of evidence is in its lines, for confidence (`places_of`) and the hits' spans.
    spans = _Spans({term_by_id[t].name: _term_patterns(term_by_id[t]) for t in term_evidence})

    def places_of(name: str, evidence: _Evidence) -> tuple[tuple[int, int, int], ...]:
        """Where the log shows a piece of evidence: where its token or version was read, or
        where its term's forms and patterns match (`PLACE_CHARS` of each line), at most
        `LINES_PER_EVIDENCE` places a line, as tokens are read (`_counted` compares places)."""
        return tuple(
            (number, start, end)
            for number, line in evidence.lines
            for start, end in (
                evidence.at.get(line, []) if evidence.at else spans.places(line[:PLACE_CHARS], name)
            )[:LINES_PER_EVIDENCE]
        )

    top = max(shared_weights.values())
    found_by: dict[str, tuple[list[tuple[str, _Evidence]], list[Shared]]] = {}

    def label(case_id: str) -> Confidence:
        if case_id not in found_by:
            found_by[case_id] = evidence_of(case_id)
        return confidence(
            signature.get(case_id, 0.0),
            signature_count.get(case_id, 0),
            shared_weights[case_id],
            top,
            shared=tuple(found_by[case_id][1]),
            total=total,
        )

    ranked = _ranked(scores)[:limit]
    # The hits' cases with their terms (how many symptoms each lists, `Shared.listed`), and
    # the first hit's stored similar cases with how alike they are (`_like_the_first`).
    best = ranked[0]
    cases = (
        Case.objects.filter(
            Q(id__in=ranked)
            | Q(id__in=CaseNeighbour.objects.filter(case_id=best).values("neighbour_id"), status=PUBLISHED)
        )
        .annotate(
            like_first=Subquery(
                CaseNeighbour.objects.filter(case_id=best, neighbour_id=OuterRef("pk")).values("score")[:1]
            )
        )
        .with_summary()
        .in_bulk()
    )
    alike = {
        c: float(like) for c, case in cases.items() if (like := getattr(case, "like_first", None)) is not None
    }
    lifted: set[str] = set()  # cases listed higher as cases like the first hit
    for case_id, score in _like_the_first(scores, best, alike).items():
        if score > scores[case_id]:
            lifted.add(case_id)
        scores[case_id] = score
        shared_weights.setdefault(case_id, 0.0)
    ranked = _ranked(scores)[:limit]
    symptoms_listed = {
        case_id: sum(1 for t in case.linked_terms or () if t.facet == Facet.SYMPTOM)
        for case_id, case in cases.items()
    }
    # A strong hit below one that is not is possible: the rare words a case shares add to its
    # score, not to its label, and a possible hit ranked above a strong one (the list saying
    # "this one" of a case it calls less certain). Strong hits are the head of the list;
    # moving them up instead put a wrong strong case above the right possible one (two of the
    # tuning logs, eval/logs.json).
    labels: dict[str, Confidence] = {}
    head = True  # every hit so far is strong
    for case_id in ranked:
        labelled = label(case_id)
        if labelled == "strong" and not head:
            labelled = "possible"
        head = head and labelled == "strong"
        labels[case_id] = labelled
    hits = []
    component_names = {t.name for t in terms if t.facet == Facet.COMPONENT}
    shared_lines: set[str] = set()  # every line a hit lists (the reading's context lines)
    for case_id in ranked:
        named = found_by[case_id][0]
        # Each distinct line once, at its first number, as the reading counts lines: a line
        # the log repeats (every rank printing it) was listed at each number it had, so a hit
        # could list more lines than the reading said carry anything.
        per_line: dict[str, tuple[int, list[str]]] = {}
        for name, evidence in [*named, *word_reasons.get(case_id, [])]:
            for number, line in evidence.lines:
                first, names = per_line.setdefault(line, (number, []))
                if number < first:
                    per_line[line] = (number, names)
                if name not in names:
                    names.append(name)
        # The lines that carry a signature first, then those sharing only a component's name
        # (`NCCL INFO Bootstrap`), each in line order: a log's first lines are mostly
        # such context, and listed by number they filled the hit's places (and MCP's first
        # five) ahead of the watchdog line that was the evidence.
        context_only = {line for line, (_, names) in per_line.items() if set(names) <= component_names}
        # Of those, the ones that say something (`hit_lines.context_shown`): not a launcher's
        # banner printed from a path naming the component, nor a run differing in digits.
        readable = context_shown(
            ((line, per_line[line][1]) for line in sorted(context_only, key=lambda x: per_line[x][0])),
            spans.places,
        )
        shown = sorted(
            ((line in context_only, number), (line, names))
            for line, (number, names) in per_line.items()
            if line not in context_only or line in readable
        )
        shown = shown[:MAX_LINES_PER_HIT]
        shared_lines.update(line for _, (line, _) in shown)
        rare = [word for word, _ in word_reasons.get(case_id, [])]
        versions = {f"{name} {version}" for name, version in versions_of.get(case_id, ())}
        listed = [(number, names) for (_, number), (_, names) in shown]
        shared_names = _first_lines(listed, leaving_out={*component_names, *rare, *versions})
        hits.append(
            LogHit(
                case=cases[case_id],
                score=round(scores[case_id], 4),
                matched_terms=tuple(dict.fromkeys(name for name, _ in named)),
                lines=[
                    LogLine(
                        line_number=number,
                        line=shown_line(line),
                        terms=tuple(names),
                        spans=spans.of(shown_line(line), names),
                    )
                    for (_, number), (line, names) in shown
                ],
                confidence=labels[case_id],
                why=why_log_listed(
                    shared_names,
                    context=[name for name, _ in named if name in component_names],
                    words=rare,
                    versions=sorted(versions),
                    like=best if case_id in lifted else None,
                ),
                signature=bool(shared_names),
            )
        )
    return reading(hits, tuple(sorted(generic)), frozenset(shared_lines))


def _first_lines(shown: list[tuple[int, list[str]]], leaving_out: set[str]) -> list[tuple[str, int]]:
    """(name, the number of the first line listing it) of each name a hit's lines list
    (`shown`: line number and names, in the order the hit lists them), in that order,
    but those in `leaving_out` (component names, rare words: said apart in its `why`)."""
    found: dict[str, int] = {}
    for number, names in shown:
        for name in names:
            if name not in leaving_out:
                found[name] = min(found.get(name, number), number)
    return list(found.items())


def _kind_factor(kind: str | None, case_kinds: frozenset[str], both_kinds: bool) -> float:
    """The ranking's factor for a case of workloads `case_kinds` on a log of job `kind`
    (`_job_kind`): `KIND_MATCH` for a case of that kind, `KIND_MISMATCH` for a case only of
    the other kind unless the log shows both (`both_kinds`), else 1."""
    if kind and kind in case_kinds:
        return KIND_MATCH
    if kind and case_kinds and not both_kinds:
        return KIND_MISMATCH  # a case only of a kind of job the log does not show
    return 1.0


def _shared_weight(weight: float, kind_factor: float) -> float:
    """What a case shares with the log as its label compares it with the best hit's
    (`Thresholds.share_of_top`): the `weight` of its signatures and context, lowered only
    when the case is of a kind of job the log does not show (`KIND_MISMATCH`: the log says
    something against it). The rare words it shares are not in `weight`: they reorder the
    hits but never make one strong. The factors that only order cases of equal evidence are
    left out too: the job kind a case matches (a case whose workload is not recorded is not less
    of a match) and the semantic score of the log's lines. Read with them, IL-0485
    (workload not recorded) was "possible" and IL-0450 (training) "strong" for an
    InfiniBand training log of which each shares the same two error codes and their lines
    (a new user's walkthrough)."""
    return weight * min(kind_factor, 1.0)


def _naming_part(held: dict[str, float], line: str, weight: float) -> float:
    """What a naming token (a code name, environment variable or setting) of ranked `weight`,
    first read on `line`, adds to a case's ranking score, given the naming tokens that case
    already shares (`held`: first line -> the heaviest weight read there; updated): what it
    weighs over the heaviest of its line, so a line's naming tokens count as their heaviest
    whatever the order they are added in (`NAMING_WEIGHT`)."""
    before = held.get(line, 0.0)
    held[line] = max(before, weight)
    return max(weight - before, 0.0)


def _ranked(scores: dict[str, float]) -> list[str]:
    """Case ids best first, scores rounded so that equal evidence ties on both backends (the
    sums' float order follows the database's row order), a tie to the lower id."""
    return sorted(scores, key=lambda c: (-round(scores[c], 9), c))


def _like_the_first(scores: dict[str, float], first: str, alike: dict[str, float]) -> dict[str, float]:
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


def _cases_containing(backend: Backend, atoms: list[Atom]) -> dict[int, int]:
    """How many published cases contain each atom (index -> count, as `atom_counts`), kept
    per store generation (`store_cache.cached_many`): the same common tokens (`Xid 79`, the
    NCCL watchdog's message) recur from log to log, and counting one in 47,000 of 100,000
    cases took 230 ms on PostgreSQL (a phrase is checked on every matching row)."""
    # Two tokens may be the same words (`device-side` and `device side`): one name, both places.
    places: dict[str, list[int]] = {}
    for index, atom in enumerate(atoms):
        places.setdefault(_count_name(atom), []).append(index)

    def count(missing: list[str]) -> dict[str, int]:
        found = backend.atom_counts([atoms[places[name][0]] for name in missing])
        return {name: found.get(at, 0) for at, name in enumerate(missing)}

    counts = store_cache.cached_many(list(places), count)
    return {index: counts[name] for name, indexes in places.items() for index in indexes}


def _count_name(atom: Atom) -> str:
    """The cache name of an atom's case count (a digest: a token may hold any characters)."""
    return f"log-atom-cases:{atom_digest(atom)}"


def _rare_words(
    lines: dict[str, list[int]], failure_lines: set[str], signature_lines: set[str], total: int
) -> tuple[dict[str, float], dict[str, list[tuple[str, _Evidence]]]]:
    """Case id -> weight of the rare words it shares with the log, and case id -> those
    words with their lines (as reasons are kept).

    What a log says in its own words (`decoupled: True` in a Triton config, `NVLS Bind mem`,
    a package name) names its failure as often as its error codes do, and a plain BM25 over
    the log found such cases when no signature did. The words looked up: at most
    `WORD_LOOKUP` distinct ones (letters only, 4 to 40 of them, no stop words), first from
    the lines naming a failure, then the other signature lines, then the rest of the log
    from its end (where a log tells how it ended). One query (`rare_atom_hits`) keeps those
    in at most `RARE_SHARE` of the published cases; the `RARE_WORDS` rarest count, each
    `WORD_WEIGHT * log(1 + N / n)` for every case containing it, when the case contains at
    least `MIN_RARE_WORDS` of them. Rare words add to the
    ranking score only, never to the signatures that `confidence` reads: a case found by
    words alone is a weak hit.
    """
    ordered = _evidence_lines(lines, signature_lines, failure_lines)
    ordered += [line for line in reversed(list(lines)) if line not in signature_lines]
    first_line: dict[str, tuple[str, str]] = {}  # lower-cased word -> (its line, as written)
    read_forms: set[str] = set()
    for line in ordered:
        # A line that differs from one read already only in its digits (a counter, a time,
        # a rank) has the same words of letters only: nothing new to find in it.
        form = line.translate(_DIGITS_AS_ZERO)
        if form in read_forms:
            continue
        read_forms.add(form)
        for word in words(line):
            low = word.lower()
            if 4 <= len(low) <= 40 and low.isalpha() and low not in STOP_WORDS and low not in first_line:
                first_line[low] = (line, word)
        if len(first_line) >= WORD_LOOKUP:
            break
    found = list(first_line)[:WORD_LOOKUP]
    by_word: dict[int, list[str]] = {}
    for case_id, index in get_backend().rare_atom_hits(
        [Atom((w,)) for w in found], max(1, int(RARE_SHARE * total))
    ):
        by_word.setdefault(index, []).append(case_id)
    rare = sorted(by_word.items(), key=lambda kv: (len(kv[1]), found[kv[0]]))[:RARE_WORDS]
    score: dict[str, float] = {}
    reasons: dict[str, list[tuple[str, _Evidence]]] = {}
    for index, case_ids in rare:
        weight = WORD_WEIGHT * math.log(1 + total / len(case_ids))
        evidence = _Evidence()
        line, written = first_line[found[index]]
        for number in lines[line]:
            evidence.add(number, line)
        for case_id in case_ids:
            score[case_id] = score.get(case_id, 0.0) + weight
            reasons.setdefault(case_id, []).append((written, evidence))
    # One shared rare word is a coincidence as often as not (`opcode` in one unrelated case
    # outranked the case carrying the log's Xid code): a case needs MIN_RARE_WORDS of them.
    kept = {case_id for case_id, shared in reasons.items() if len(shared) >= MIN_RARE_WORDS}
    return (
        {case_id: score[case_id] for case_id in kept},
        {case_id: reasons[case_id] for case_id in kept},
    )


_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")


def _evidence_lines(
    lines: dict[str, list[int]], signature_lines: set[str], failure_lines: set[str]
) -> list[str]:
    """The log's lines that carry evidence, in log order: those naming the failure first,
    then those with only code names or settings."""
    ordered = [line for line in lines if line in failure_lines]
    ordered += [line for line in lines if line in signature_lines and line not in failure_lines]
    return ordered


def _semantic_scores(
    lines: dict[str, list[int]], signature_lines: set[str], failure_lines: set[str], candidates: list[str]
) -> dict[str, float]:
    """Candidate case id -> semantic score of the log's evidence lines against its passages
    (`semantic.Vectors.case_scores`); empty without candidates or the encoder. The lines
    naming the failure come first, in log order, then those with only code names or
    settings, up to `SEMANTIC_CHARS`. One query (the candidates' stored vectors)."""
    if not candidates or not encoder.available():
        return {}
    ordered = _evidence_lines(lines, signature_lines, failure_lines)
    text = "\n".join(shown_line(line) for line in ordered)[:SEMANTIC_CHARS]
    vector = query_vector(text) if text.strip() else None
    if vector is None:
        return {}
    return candidate_scores(vector, candidates)


def _workload_kinds(candidates: list[str]) -> dict[str, frozenset[str]]:
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


def _term_patterns(term: Term) -> list[tuple[str, bool]]:
    """RE2 patterns finding a term in a line, each with whether it is a name or synonym
    (not read inside a source-file name, `_term_forms_in`): its name and synonyms, then its
    own patterns."""
    found = []
    for form in [] if term.facet in PATTERNS_ONLY else [term.name, *term.synonyms]:
        if words(form):
            pattern, ignore_case = _form_pattern(form)
            found.append((("(?i)" if ignore_case else "") + pattern, True))
    found.extend(("(?i)" + p, False) for p in term.patterns if pattern_problem(p) is None)
    return found
