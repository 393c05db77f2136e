"""A strong search hit is one failure the query names, not a survey listing it in passing
(`surveys.survey_label`) nor any case when the exception a pasted line names is in
no case (`ranking.rank`); a scale the words state is no word to search (`scale_words`).

A new user's walkthrough: `AsyncEngineDeadError: Background loop has errored already.` made
a checkpointing case sharing `already`, `background`, `loop` and `errored` strong (W1); a
pasted `CUDA error: an illegal memory access` made ByteDance's census of 55,000 incidents
strong (W11), `job failed` Meta's RSC statistics (W5); `nccl timeout on 512 gpus` kept 3 of
the 13 NCCL-timeout matches, with the RSC statistics, which quote "512+ GPU", strong (W9).
"""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.fusion import POSSIBLE, STRONG, Candidate
from incidents.search.planning import SearchRequest, plan
from incidents.search.scale_words import read_scale, read_scale_unquoted
from incidents.search.surveys import SURVEY_GROUPS, survey_label

pytestmark = pytest.mark.django_db


def _first(query: str) -> tuple[str, str | None]:
    hit = search_cases(query=query).hits[0]
    return hit.case.id, hit.confidence


def _label(query: str, case_id: str) -> str | None:
    results = search_cases(query=query)
    return next(h.confidence for h in [*results.hits, *results.partial_hits] if h.case.id == case_id)


def test_an_exception_name_no_case_holds_makes_no_hit_strong():
    query = "AsyncEngineDeadError: Background loop has errored already."
    assert plan(SearchRequest(query=query)).unseen_exceptions == ("AsyncEngineDeadError",)
    results = search_cases(query=query)
    assert [(h.case.id, h.confidence) for h in results.hits] == [("IL-0495", POSSIBLE)]
    # The engine's failure in words is still a strong match to the vLLM engine-dead case.
    assert _first("vllm engine dead background loop") == ("IL-0532", STRONG)
    # An exception name some case holds keeps its strong hit.
    assert plan(SearchRequest(query="DistBackendError NCCL error")).unseen_exceptions == ()


@pytest.mark.parametrize(
    ("query", "survey"),
    [
        ("RuntimeError: CUDA error: an illegal memory access was encountered", "IL-0631"),
        ("job failed", "IL-0444"),
        ("NODE_FAIL", "IL-0563"),
    ],
)
def test_a_survey_matching_few_of_the_words_is_possible(query, survey):
    # First on SQLite; on PostgreSQL `job failed` puts the Acme trace summary (IL-0446) first.
    assert _label(query, survey) == POSSIBLE


def test_a_survey_found_by_what_the_query_asks_of_it_stays_strong():
    assert _first("lemon node detection slurm") == ("IL-0444", STRONG)


def test_only_a_strong_survey_matching_few_groups_is_relabelled():
    def candidate(share: float, confidence=STRONG) -> Candidate:
        return Candidate("IL-0631", 0.9, share=share, semantic=0.5, lexical_rank=1, confidence=confidence)

    # ByteDance's census lists 13 symptoms; one incident of Xid 79 (IL-0523) lists 4.
    assert survey_label(candidate(2 / 4), symptoms=13, groups=4) == POSSIBLE
    assert survey_label(candidate(SURVEY_GROUPS / 4), symptoms=13, groups=4) == STRONG
    assert survey_label(candidate(1 / 4), symptoms=4, groups=4) == STRONG
    assert survey_label(candidate(1 / 4, POSSIBLE), symptoms=13, groups=4) == POSSIBLE


def test_a_survey_named_by_its_id_stays_strong():
    hit = search_cases(query="IL-0444 nccl").hits[0]
    assert (hit.case.id, hit.confidence) == ("IL-0444", STRONG)


def test_a_stated_scale_is_read_as_context_not_searched():
    results = search_cases(query="nccl timeout on 512 gpus")
    assert "Read 512 as the job's scale, not as a word to search." in results.notes
    # 13 matches on SQLite, 12 on PostgreSQL: those of `nccl timeout gpus` (3 with the 512).
    assert results.total == search_cases(query="nccl timeout gpus").total >= 12
    assert {h.confidence for h in results.hits} == {POSSIBLE}
    assert _label("nccl timeout on 512 gpus", "IL-0444") != STRONG
    # A number after a code's name is the code's: `Xid 79` is searched.
    assert read_scale("Xid 79 on 8 GPUs") == ("Xid 79 on GPUs", 8)
    # A quoted phrase is searched as typed.
    assert read_scale_unquoted('"hang on 512 GPUs" on 8 GPUs') == ('"hang on 512 GPUs" on GPUs', 8)
    assert _first("Xid 79 on 8 GPUs") == ("IL-0523", STRONG)
