"""A log hit says why it is listed, in words, as a search hit does (`results.why_log_listed`):
the signatures it shares with the log by the first line showing them, the log's rare words
it holds, the components it names beside them, and whether it is listed as a case like the
first hit. Log hits carried no `why` (a new user's walkthrough)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.results import why_log_listed

pytestmark = pytest.mark.django_db

IB_LOG = (Path(__file__).parent / "logs" / "torchrun-ib-completion-status-12.log").read_text(encoding="utf-8")
SHARED = "Shares: error 12, NCCL error, NET/IB completion error (line 10); IBV_WC_RETRY_EXC_ERR (line 12)."


def test_the_ib_cases_name_the_signatures_and_their_lines():
    hits = {hit.case.id: hit for hit in read_log(IB_LOG).hits}
    assert hits["IL-0450"].why == f"{SHARED} Context: NCCL."
    # Second on its own evidence and as a case like the first: both said.
    assert hits["IL-0485"].why == f"{SHARED} Context: NCCL, InfiniBand. Similar to IL-0450, the first hit."


def test_every_hit_says_why_and_names_only_what_it_lists():
    for hit in read_log(IB_LOG).hits:
        assert hit.why
        for line_number in map(int, re.findall(r"\(line (\d+)\)", hit.why)):
            assert line_number in {line.line_number for line in hit.lines}


def test_a_case_sharing_only_rare_words_says_so():
    [hit] = read_log("ZorblaxTimeoutError: decoupled turbomind rollout\n").hits
    assert hit.why == "Rare words: turbomind, decoupled."
    assert not hit.signature


def test_the_sentence_cuts_long_lists_and_says_versions_apart():
    evidence = [(f"token{i}", 3) for i in range(7)]
    assert why_log_listed(evidence, versions=["NCCL 2.18.1"]) == (
        "Shares: token0, token1, token2, token3, token4 (line 3); 2 more. Affected version: NCCL 2.18.1."
    )
