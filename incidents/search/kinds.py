"""Whether a query says which failure, or only which kind: a query naming nothing but common
vocabulary terms (`NCCL watchdog timeout, training hangs`, `vLLM CUDA out of memory`) is
answered alike by every case of that kind, so none of them is a strong match
(`fusion.fuse`): the case ranked first there had the most of the words, not the failure.

The terms are weighed as log matching weighs a log's evidence (`logmatch.specific_units`,
with its thresholds): a term on few cases says which failure or system it is (two units, as
a rare error token), a symptom or root cause on some more one unit, a common term (a
component most cases run, `Training hang`) none; two units are needed, as in a log.
"""

from __future__ import annotations

from incidents.models import Facet

from .log_thresholds import THRESHOLDS
from .query import ParsedQuery, VocabTerm

# Facets whose terms say what failed; components, topics and workloads say what ran.
FAILURE_FACETS = frozenset({Facet.SYMPTOM, Facet.ROOT_CAUSE})


def term_units(term: VocabTerm, library_size: int) -> int:
    """How specifically naming `term` says which failure: 2 when at most
    `THRESHOLDS.common_token` of the published cases carry it (`etcd`, `SGLang`), 1 for a
    symptom or root cause on at most `THRESHOLDS.generic_term` of them (`NCCL timeout`,
    `Out of memory`), 0 otherwise (`vLLM`, `NCCL`, `Training hang`)."""
    if term.cases <= THRESHOLDS.common_token * library_size:
        return 2
    if term.facet in FAILURE_FACETS and term.cases <= THRESHOLDS.generic_term * library_size:
        return 1
    return 0


def names_only_a_kind(parsed: ParsedQuery, library_size: int) -> bool:
    """Whether every word group of `parsed` is a run naming vocabulary terms (no other word,
    no identifier such as `Xid 79`) and together they weigh fewer than `THRESHOLDS.specific`
    units (`term_units`; a group counts once, by its most specific term). False for a query
    not widened with the vocabulary (no `group_terms`) or an empty library."""
    if library_size <= 0 or not parsed.groups or len(parsed.group_terms) != len(parsed.groups):
        return False
    if not all(parsed.group_terms):
        return False
    units = sum(max(term_units(t, library_size) for t in terms) for terms in parsed.group_terms)
    return units < THRESHOLDS.specific
