"""Which published cases share a pasted log's evidence, from the database: the failure
tokens looked up in the cases' full-text index (`look_up_tokens`), the cases carrying the
found terms (`look_up_terms`), and for evidence in more than `CANDIDATE_CAP` cases, only
those the rarer evidence found and its own first ones (`add_common_evidence`), so the rows
a log brings into Python stay bounded as the store grows. What each adds goes to a
`log_scores.Tally`.
"""

from __future__ import annotations

from dataclasses import dataclass

from incidents import store_cache
from incidents.id_lists import ids_subquery
from incidents.models import Case, CaseTerm

from .backends import Backend, atom_digest
from .log_findings import Findings
from .log_scores import Tally
from .log_tokens import tokens_to_look_up
from .query import Atom
from .text import words

# Evidence (a failure token, a term) in more than this many published cases is not returned
# case by case: what it adds goes to the cases the rarer evidence found and to its own first
# CANDIDATE_CAP cases by id, which fill the places after them (up to three more queries).
# The rows a log's matching brings into Python stay bounded as the store grows (an Xid code
# most of 100,000 cases quote was 47,000 rows; the database still reads its matches to count
# and sort them); below the cap nothing changes.
CANDIDATE_CAP = 1000


@dataclass(frozen=True)
class TokenLookup:
    """The failure tokens looked up (`look_up_tokens`) and the cases holding each."""

    tokens: list[str]  # looked up, in order (`log_tokens.tokens_to_look_up`)
    atoms: list[Atom]  # their words, one per token (empty for a token with no words)
    usable: list[int]  # indexes of the tokens with words: position p is tokens[usable[p]]
    hits_by_atom: dict[int, list[str]]  # position -> case ids (up to CANDIDATE_CAP + 1 of them)
    common: list[int]  # positions of the tokens in more than CANDIDATE_CAP cases

    def token(self, position: int) -> str:
        """The token looked up at `position`."""
        return self.tokens[self.usable[position]]


def look_up_tokens(backend: Backend, findings: Findings, tally: Tally) -> TokenLookup:
    """Look the log's failure tokens up in the full-text index of the published cases (one
    query) and add each token in at most `CANDIDATE_CAP` cases to `tally`; the others are
    `TokenLookup.common`, for `add_common_evidence`."""
    tokens = tokens_to_look_up(findings.tokens)
    atoms = [Atom(tuple(words(t))) for t in tokens]
    usable = [i for i, a in enumerate(atoms) if a.words]
    # Evidence in more than CANDIDATE_CAP cases is not read case by case: its cases are
    # those the rarer evidence found and its own first ones (`add_common_evidence`).
    hits_by_atom: dict[int, list[str]] = {}
    for case_id, position in backend.capped_atom_hits([atoms[i] for i in usable], CANDIDATE_CAP):
        hits_by_atom.setdefault(position, []).append(case_id)
    common = [p for p, case_ids in hits_by_atom.items() if len(case_ids) > CANDIDATE_CAP]
    lookup = TokenLookup(tokens, atoms, usable, hits_by_atom, common)
    for position, case_ids in hits_by_atom.items():
        if position not in common:
            tally.add_token(position, lookup.token(position), case_ids, len(case_ids))
    return lookup


def look_up_terms(findings: Findings, tally: Tally) -> list[int]:
    """Add to `tally` the published cases carrying each found term (every facet, root causes
    included) on at most `CANDIDATE_CAP` cases: one query of plain (case, term) pairs, no
    case objects. Returns the other, common, terms' ids, for `add_common_evidence`."""
    # Read by term with each case's status, kept in Python: these terms are on at most
    # CANDIDATE_CAP published cases each (and the few of other statuses), and asked for
    # published cases, SQLite's planner read every published case and looked each up (95 ms
    # at 100,000 cases for a term on 3 of them, against under 1 ms).
    found = list(findings.term_evidence)
    common_terms = [t for t in found if findings.term_by_id[t].case_count > CANDIDATE_CAP]
    tally.add_terms(
        (case_id, term_id)
        for case_id, term_id, status in CaseTerm.objects.filter(
            term_id__in=[t for t in found if t not in common_terms]
        )
        .order_by()
        .values_list("case_id", "term_id", "case__status")
        if status == Case.Status.PUBLISHED
    )
    return common_terms


def add_common_evidence(
    backend: Backend,
    lookup: TokenLookup,
    common_terms: list[int],
    tally: Tally,
    candidates: list[str],
) -> None:
    """Add to `tally` the common tokens (`lookup.common`) and terms (`common_terms`) for
    `candidates` (the cases the rarer evidence found) and for each one's first
    `CANDIDATE_CAP` cases by id, which fill the places after them. Up to four queries: the
    common terms' first cases, the common tokens' case counts (none when kept for this
    store generation, `cases_containing`), which candidates hold them, the common terms'
    candidates."""
    findings = tally.findings
    # Which of them is best is then scored as for every candidate (`Tally.candidates`).
    filler = {c for p in lookup.common for c in lookup.hits_by_atom[p][:CANDIDATE_CAP]}
    signature_terms = [t for t in common_terms if not findings.is_context(t)]
    if signature_terms:
        filler.update(
            CaseTerm.objects.filter(case__in=Case.objects.published(), term_id__in=signature_terms)
            .order_by("case_id")
            .values_list("case_id", flat=True)
            .distinct()[:CANDIDATE_CAP]
        )
    candidates = list(dict.fromkeys([*candidates, *sorted(filler)]))
    common = [lookup.atoms[lookup.usable[p]] for p in lookup.common]
    counts = cases_containing(backend, common)
    among: dict[int, list[str]] = {}
    for case_id, index in backend.atom_hits_among(common, candidates):
        among.setdefault(lookup.common[index], []).append(case_id)
    for index, position in enumerate(lookup.common):
        tally.add_token(
            position, lookup.token(position), among.get(position, []), max(counts.get(index, 0), 1)
        )
    tally.add_terms(
        CaseTerm.objects.filter(term_id__in=common_terms, case_id__in=ids_subquery(candidates))
        .order_by()
        .values_list("case_id", "term_id")
    )
    tally.generic.update(findings.term_by_id[t].name for t in common_terms if findings.is_context(t))


def cases_containing(backend: Backend, atoms: list[Atom]) -> dict[int, int]:
    """How many published cases contain each atom (index -> count, as `atom_counts`), kept
    per store generation (`store_cache.cached_many`): the same common tokens (`Xid 79`, the
    NCCL watchdog's message) recur from log to log, and counting one in 47,000 of 100,000
    cases took 230 ms on PostgreSQL (a phrase is checked on every matching row)."""
    # Two tokens may be the same words (`device-side` and `device side`): one name, both places.
    places: dict[str, list[int]] = {}
    for index, atom in enumerate(atoms):
        places.setdefault(count_name(atom), []).append(index)

    def count(missing: list[str]) -> dict[str, int]:
        found = backend.atom_counts([atoms[places[name][0]] for name in missing])
        return {name: found.get(at, 0) for at, name in enumerate(missing)}

    counts = store_cache.cached_many(list(places), count)
    return {index: counts[name] for name, indexes in places.items() for index in indexes}


def count_name(atom: Atom) -> str:
    """The cache name of an atom's case count (a digest: a token may hold any characters)."""
    return f"log-atom-cases:{atom_digest(atom)}"
