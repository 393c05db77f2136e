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
import math
from collections.abc import Iterable

import re2
from django.db.models import OuterRef, Q, Subquery

from incidents import store_cache
from incidents.codes import natural_key
from incidents.id_lists import ids_subquery
from incidents.models import Case, CaseTerm, Facet
from incidents.selectors.stats import published_count
from incidents.selectors.vocabulary import terms_with_case_counts

from . import encoder
from .backends import Backend, atom_digest, get_backend
from .gate import one_at_a_place
from .hit_lines import context_shown
from .log_confidence import Shared, confidence, head_labels, names_the_failure, shared_weight, specific_units
from .log_job_kind import read_job_kind, workload_kinds
from .log_lines import MAX_LOG_BYTES, LogLines, shown_line
from .log_rare_words import rare_words
from .log_terms import find_terms, term_patterns
from .log_text import LINES_PER_EVIDENCE, Evidence, decode_log, evidence_lines, physical_lines, unique_lines
from .log_thresholds import THRESHOLDS, Thresholds
from .log_tokens import NAMING_EXTRACTORS, failure_tokens, signature_tokens, tokens_to_look_up
from .log_versions import affected_by, component_versions
from .models import CaseNeighbour
from .patterns import inside, not_word_spans, options
from .query import Atom
from .results import Confidence, FoundCode, LogHit, LogLine, LogReading, why_log_listed
from .semantic import candidate_scores, query_vector
from .text import words

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
# A component found by name only (context) counts this much of its weight, and only for a
# case that also has a signature.
CONTEXT_WEIGHT = 0.5
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
# Evidence (a failure token, a term) in more than this many published cases is not returned
# case by case: what it adds goes to the cases the rarer evidence found and to its own first
# CANDIDATE_CAP cases by id, which fill the places after them (up to three more queries).
# The rows a log's matching brings into Python stay bounded as the store grows (an Xid code
# most of 100,000 cases quote was 47,000 rows; the database still reads its matches to count
# and sort them); below the cap nothing changes.
CANDIDATE_CAP = 1000


def match_log(text: str | bytes, *, limit: int = 10) -> list[LogHit]:
    """Rank published cases by the failure signatures found in pasted log `text`.

    The hits of `read_log` (see there); kept for callers that need only them.
    """
    return read_log(text, limit=limit).hits


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
                # A name is not read inside a source-file or host name (`log_terms.term_forms_in`):
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
    all_lines = physical_lines(text)
    lines = unique_lines(text)
    blank = sum(1 for line in all_lines if not line.strip())
    repeated = len(all_lines) - blank - len(lines)
    scanned = LogLines(lines)
    job = read_job_kind(scanned)

    terms = terms_with_case_counts([Facet.SYMPTOM, Facet.COMPONENT, Facet.ROOT_CAUSE, Facet.ERROR_CODE])
    found_terms = find_terms(lines, scanned, terms)
    term_evidence = found_terms.evidence
    by_pattern = found_terms.by_pattern  # terms found by one of their own patterns
    signature_lines = set(found_terms.lines)
    # The lines the reading counts as carrying a signature (`log_terms.FoundTerms.counted_lines`).
    counted_lines = set(found_terms.counted_lines)
    failure_lines = set(signature_lines)  # lines naming a term, or a failure token (below)
    token_evidence = failure_tokens(lines, scanned)
    version_evidence = component_versions(lines, terms, scanned)
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
            job_kind=job.kind,
            generic_only=generic,
        )

    if not term_evidence and not token_evidence and not version_evidence:
        return reading([])

    total = max(published_count(), 1)
    signature: dict[str, float] = {}
    signature_count: dict[str, int] = {}
    context: dict[str, float] = {}
    term_by_id = {t.id: t for t in terms}

    tokens = tokens_to_look_up(token_evidence)
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

    word_score, word_reasons = rare_words(lines, failure_lines, signature_lines, total)
    slug_of = {t.name: t.slug for t in terms if t.facet == Facet.COMPONENT}
    versions_of: dict[str, list[tuple[str, str]]] = {}
    for case_id, name, version in affected_by(version_evidence, slug_of):
        signature[case_id] = signature.get(case_id, 0.0) + VERSION_WEIGHT
        signature_count[case_id] = signature_count.get(case_id, 0) + 1
        versions_of.setdefault(case_id, []).append((name, version))

    def evidence_of(case_id: str) -> tuple[list[tuple[str, Evidence]], list[Shared]]:
        """What `case_id` shares with the log: (name, evidence) in the order found (tokens,
        terms, versions), and the same as `Shared` for `confidence`."""
        named: list[tuple[str, Evidence]] = []
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
    kinds = workload_kinds(candidates) if candidates else {}
    semantic = _semantic_scores(lines, signature_lines, failure_lines, candidates)
    scores: dict[str, float] = {}
    # What each case shares with the log, which its label reads (`confidence`): see `shared_weight`.
    shared_weights: dict[str, float] = {}
    for case_id in candidates:
        kind_factor = job.factor(kinds.get(case_id, frozenset()))
        semantic_factor = 1 + SEMANTIC_FACTOR * max(semantic.get(case_id, 0.0), 0.0)
        weight = signature.get(case_id, 0.0) + CONTEXT_WEIGHT * context.get(case_id, 0.0)
        shared_weights[case_id] = shared_weight(weight, kind_factor)
        ranked_weight = weight - unranked.get(case_id, 0.0) + word_score.get(case_id, 0.0)
        scores[case_id] = ranked_weight * kind_factor * semantic_factor

    if limit <= 0 or not scores:
        return reading([], tuple(sorted(generic)))
    # The RE2 patterns of the terms found, by name (compiled once each, `_compiled`): where
    # each piece of evidence is in its lines, for confidence (`places_of`) and the hits' spans.
    spans = _Spans({term_by_id[t].name: term_patterns(term_by_id[t]) for t in term_evidence})

    def places_of(name: str, evidence: Evidence) -> tuple[tuple[int, int, int], ...]:
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
    found_by: dict[str, tuple[list[tuple[str, Evidence]], list[Shared]]] = {}

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
    labels = dict(zip(ranked, head_labels(label(case_id) for case_id in ranked), strict=True))
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


def _semantic_scores(
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
    return candidate_scores(vector, candidates)
