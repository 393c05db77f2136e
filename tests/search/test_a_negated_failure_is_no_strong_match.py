"""A hit whose snippet names the query's failure only to say it did not happen is labelled
possible, and `why` does not say it matches that failure (`negated_marks.py`).

A user's report: `NCCL error 12` listed IL-0472 (all-gather returned corrupted data "without
an NCCL error") as a strong match, `Matches: NCCL error.`.
"""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.negated_marks import (
    failure_spellings,
    negated_failure,
    negated_spellings,
    typed_failures,
    unmarked,
    without_spellings,
)
from incidents.search.query import Atom, ParsedQuery, VocabTerm
from incidents.search.results import Snippet, SnippetSegment

NCCL_ERROR = VocabTerm(id=1, facet="symptom", name="NCCL error", forms=("NCCL error", "ncclSystemError"))
SPELLINGS = failure_spellings(ParsedQuery(groups=[], terms=[NCCL_ERROR]), ["cudaErrorMemoryAllocation"])


def _snippet(*parts: tuple[str, bool]) -> Snippet:
    return Snippet(tuple(SnippetSegment(text, matched) for text, matched in parts))


def test_the_failure_spellings_are_the_symptom_forms_and_the_codes_shown():
    assert SPELLINGS == {("nccl", "error"), ("ncclsystemerror",), ("cudaerrormemoryallocation",)}
    component = VocabTerm(id=2, facet="component", name="NCCL", forms=("NCCL",))
    assert failure_spellings(ParsedQuery(groups=[], terms=[component])) == frozenset()


def test_a_negated_mention_is_unmarked_and_a_plain_one_kept():
    negated = _snippet(("…data, without an ", False), ("NCCL error", True), (", on a system", False))
    assert negated_failure(negated, SPELLINGS)
    assert negated_spellings(negated, SPELLINGS) == {("nccl", "error")}
    assert [s.matched for s in unmarked(negated, SPELLINGS).segments] == [False, False, False]
    plain = _snippet(("the job died with an ", False), ("NCCL error", True), (" after", False))
    assert not negated_failure(plain, SPELLINGS)
    assert unmarked(plain, SPELLINGS) is plain
    # Negated in one clause, printed in another: the case says it happened.
    both = _snippet(
        ("no ", False), ("NCCL error", True), (" at first. Then ", False), ("ncclSystemError", True)
    )
    assert not negated_failure(both, SPELLINGS)
    assert negated_spellings(both, SPELLINGS) == {("nccl", "error")}
    # PostgreSQL marks each word of a phrase; a mark may run on past the failure.
    words_marked = _snippet(
        ("without an ", False), ("NCCL", True), (" ", False), ("error", True), (" here", False)
    )
    assert negated_failure(words_marked, SPELLINGS)
    assert [s.matched for s in unmarked(words_marked, SPELLINGS).segments] == [False] * 5
    run_on = _snippet(("failed with ", False), ("NCCL error", True), (" ", False), ("12", True))
    assert not negated_failure(run_on, SPELLINGS)
    assert negated_spellings(run_on, SPELLINGS) == frozenset()
    # A word the query names that is no failure's spelling is left alone.
    other = _snippet(("without ", False), ("NCCL", True))
    assert not negated_failure(other, SPELLINGS)


def test_the_body_is_read_whole_when_given():
    body = "All-gather returned corrupted data, without an NCCL error. Per the NCCL 2.12.6 note..."
    assert negated_failure(None, SPELLINGS, body)
    assert negated_spellings(None, SPELLINGS, body) == {("nccl", "error")}
    # Plainly elsewhere in the body (a plural too): the case says it happened.
    later = body + " A later run failed with NCCL errors."
    assert not negated_failure(None, SPELLINGS, later)
    assert negated_spellings(None, SPELLINGS, later) == frozenset()
    assert not negated_failure(None, SPELLINGS, "The job hung; no error was printed.")


def test_only_a_typed_failure_negated_costs_the_label():
    interruption = VocabTerm(
        id=3, facet="symptom", name="Job interruption", forms=("Job interruption", "restart", "interruption")
    )
    parsed = ParsedQuery(
        groups=[[Atom(("loss",))], [Atom(("restart",))]],
        literal_groups=[[Atom(("loss",))], [Atom(("restart",))]],
        terms=[interruption],
        group_terms=[(), (interruption,)],
    )
    spellings = failure_spellings(parsed)
    assert typed_failures(parsed) == {("restart",)}
    assert typed_failures(parsed, ["ncclSystemError"]) == {("restart",), ("ncclsystemerror",)}
    # IL-0476 compares its resumed run with one "that kept going without interruption".
    body = "The resumed run did not follow the loss curve of a run that kept going without interruption."
    assert not negated_failure(None, spellings, body, typed_failures(parsed))
    assert negated_failure(None, spellings, body)  # every form counting, it would have


def test_why_leaves_out_the_negated_spelling_only():
    typed: list[list[tuple[str, ...]]] = [[("NCCL", "error"), ("ncclSystemError",)], [("12",)]]
    assert without_spellings(typed, frozenset({("nccl", "error")})) == [[("ncclSystemError",)], [("12",)]]
    assert without_spellings(typed, frozenset()) is typed


@pytest.mark.django_db
def test_the_case_without_an_nccl_error_is_no_strong_match():
    hits = {hit.case.id: hit for hit in search_cases(query="NCCL error 12").hits}
    assert hits["IL-0472"].confidence == "possible"
    assert "NCCL error" not in (hits["IL-0472"].why or "")
    # The cases whose NCCL failed keep their labels.
    assert hits["IL-0485"].confidence == "strong"
    assert hits["IL-0450"].confidence == "strong"
