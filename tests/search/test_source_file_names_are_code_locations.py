"""A source file a log line names (`proxy.cc:1391`, `net_ib.cc`, `distributed_c10d.py:2606`) is
a place in the program's code, not a word the line says: NCCL prints its file before every
WARN, and the `proxy` of `proxy.cc` was read as the Load balancer's synonym `proxy`, so an
NCCL failure's log named the component Load balancer. A term's name or synonym is not read
inside a file name; a term's own patterns still are (they may name a file on purpose); a
typed query reads `proxy.cc` as the phrase `proxy cc`, which names no term."""

from __future__ import annotations

import pytest

from incidents.models import Facet, Term
from incidents.search import read_log, search_cases
from incidents.search.log_hits import Spans
from incidents.search.log_terms import term_forms_in, term_matcher, term_patterns
from incidents.search.patterns import source_file_spans
from incidents.selectors.vocabulary import terms_with_case_counts

pytestmark = pytest.mark.django_db

# NCCL 2.18-2.21 lines as printed on an InfiniBand memory-registration failure (NVIDIA/nccl
# issues): host:pid:tid [device] file:line, then the message or the return code passed up.
NCCL_LOG = """\
n7:2712:3301 [3] transport/net_ib.cc:530 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory
n7:2712:3301 [3] NCCL INFO transport/net_ib.cc:651 -> 2
n7:2712:3301 [3] NCCL INFO transport/net.cc:711 -> 2
n7:2712:3301 [3] NCCL INFO proxy.cc:1391 -> 2
n7:2712:3298 [3] NCCL INFO proxy.cc:1532 -> 2
n7:2712:2712 [3] NCCL INFO init.cc:1227 -> 2
"""
PROXY_SERVICE = (
    "gpu-node-03:1802:1990 [0] proxy.cc:1391 NCCL WARN [Proxy Service 0] Failed to execute "
    "operation Connect from rank 3, retcode 3"
)


def terms_in(line: str) -> set[str]:
    """The names of the terms log matching finds in `line`."""
    terms = terms_with_case_counts([Facet.SYMPTOM, Facet.COMPONENT, Facet.ROOT_CAUSE, Facet.ERROR_CODE])
    matcher, entries = term_matcher(terms)
    return {entries[i].term.name for i in term_forms_in(line, matcher, entries, source_file_spans(line))}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("proxy.cc:1391", ["proxy.cc:1391"]),
        ("[3] transport/net_ib.cc:530 NCCL WARN", ["net_ib.cc:530"]),
        ("[E ProcessGroupNCCL.cpp:1234] [Rank 0] Watchdog", ["ProcessGroupNCCL.cpp:1234"]),
        ('File "/usr/lib/torch/distributed/distributed_c10d.py", line 2606', ["distributed_c10d.py"]),
        ("all_reduce.cu:55:3 and router.py:12", ["all_reduce.cu:55:3", "router.py:12"]),
        # Dotted names that are no source file: a module path, a version, a library.
        ("torch.cuda.OutOfMemoryError in torch.distributed", []),
        ("NCCL version 2.19.3+cuda12.3, libnccl.so.2, model.pyc", []),
    ],
)
def test_source_file_names_are_found_with_their_line_numbers(text, names):
    assert [text[start:end] for start, end in source_file_spans(text)] == names


def test_a_source_file_name_is_not_a_component_mention():
    assert "Load balancer" not in terms_in("n7:2712:3301 [3] NCCL INFO proxy.cc:1391 -> 2")
    # The line's own words still count: NCCL by name.
    assert "NCCL" in terms_in("n7:2712:3301 [3] NCCL INFO proxy.cc:1391 -> 2")
    # The same word outside a file name is read as before.
    assert "Load balancer" in terms_in("upstream proxy returned 502 for /v1/completions")


def test_a_term_pattern_naming_a_file_still_reads_it():
    # Data pipeline's pattern `torch/utils/data/dataloader\.py` names the file on purpose; its
    # synonym `dataloader` inside the file name alone would not count.
    line = 'File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1133'
    assert "Data pipeline" in terms_in(line)
    assert "Data pipeline" not in terms_in('File "/srv/app/dataloader.py", line 12')


def test_an_nccl_failure_log_does_not_name_the_load_balancer():
    reading = read_log(NCCL_LOG)
    assert reading.hits  # `ibv_reg_mr`, `Cannot allocate memory` are failure tokens
    assert "Load balancer" not in reading.generic_only
    for hit in reading.hits:
        assert "Load balancer" not in hit.matched_terms, hit.case.id
        assert not any("Load balancer" in line.terms for line in hit.lines), hit.case.id


def test_the_proxy_thread_line_names_no_load_balancer():
    # `[Proxy Service 0]` is NCCL's proxy thread, named in words: the vocabulary's Load
    # balancer is named by `reverse proxy` and `upstream proxy`, not by `proxy` alone, which in
    # this library is NCCL's proxy thread in every case but one, so it has no place here.
    balancer = Term.objects.get(facet=Facet.COMPONENT, name="Load balancer")
    spans = Spans({balancer.name: term_patterns(balancer)})
    assert spans.places(PROXY_SERVICE, balancer.name) == []
    assert "Load balancer" not in terms_in(PROXY_SERVICE)


def test_a_query_reads_a_file_name_as_a_phrase_naming_no_term():
    results = search_cases(query="proxy.cc:1391", limit=5)
    assert not any("Load balancer" in hit.matched_terms for hit in results.hits)
    assert not any("Load balancer" in hit.matched_terms for hit in results.partial_hits)
    named = search_cases(query="reverse proxy", limit=5)  # its synonym names the term
    assert any("Load balancer" in hit.matched_terms for hit in named.hits)
    alone = search_cases(query="proxy", limit=5)  # NCCL's proxy thread, not a load balancer
    assert not any("Load balancer" in hit.matched_terms for hit in alone.hits)
