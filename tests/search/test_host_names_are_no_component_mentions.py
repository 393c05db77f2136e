"""A host name a log prints (`host : gpu-node-023`, NCCL's `gpu-node-023:1802:1990` prefix)
names a machine, not a component: its `gpu` was read as the NVIDIA GPU synonym `GPU`, so
every pasted log from such a cluster "named" the GPU. NCCL's proxy thread (`[Proxy Service
0]`) was read as Load balancer through the synonym `proxy`; the vocabulary names it by
`reverse proxy` and `upstream proxy` instead (the library's load-balancer cases say
`router`)."""

from __future__ import annotations

import pytest

from incidents.models import Facet
from incidents.search import read_log
from incidents.search.log_terms import term_forms_in, term_matcher
from incidents.search.patterns import not_word_spans
from incidents.selectors.vocabulary import terms_with_case_counts

pytestmark = pytest.mark.django_db


def terms_in(line: str) -> set[str]:
    terms = terms_with_case_counts([Facet.SYMPTOM, Facet.COMPONENT, Facet.ROOT_CAUSE, Facet.ERROR_CODE])
    matcher, entries = term_matcher(terms)
    return {entries[i].term.name for i in term_forms_in(line, matcher, entries, not_word_spans(line))}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("host : gpu-node-023", ["gpu-node-023"]),
        ("gpu-node-023:1802:1990 [0] NCCL WARN", ["gpu-node-023:"]),
        ("ip-10-0-1-23.ec2.internal went NotReady", ["ip-10-0-1-23.ec2.internal "]),
        # Versions and models are no host names.
        ("cuda-12.1 and nvidia-nccl-cu12-2.18.1 installed", []),
        ("H100-SXM5-80GB GPU 3 fell off the bus", []),
    ],
)
def test_host_names_are_found_and_versions_are_not(text, names):
    assert [text[start:end] for start, end in not_word_spans(text)] == names


def test_a_host_name_is_no_gpu_mention_but_the_word_is():
    assert "NVIDIA GPU" not in terms_in("host : gpu-node-023")
    assert "NVIDIA GPU" not in terms_in("gpu-node-023:1802:1990 [0] NCCL INFO Bootstrap : Using eth0")
    assert "NVIDIA GPU" in terms_in("GPU 3 has fallen off the bus")
    assert "CUDA" in terms_in("cuda-12.1 runtime")


def test_the_nccl_proxy_thread_is_no_load_balancer_but_a_reverse_proxy_is():
    assert "Load balancer" not in terms_in("[Proxy Service 0] Failed to execute operation Connect")
    assert "NCCL" in terms_in("NCCL WARN [Proxy Service 0] Failed to execute operation Connect")
    assert "Load balancer" in terms_in("reverse proxy returned 502 for /v1/completions")


def test_a_pasted_cluster_log_lists_no_gpu_or_load_balancer_from_its_host_and_thread():
    log = (
        "host : gpu-node-023\n"
        "gpu-node-023:1802:1990 [0] NCCL WARN [Proxy Service 0] Failed to execute operation "
        "Connect from rank 3, retcode 3\n"
    )
    reading = read_log(log, limit=10)
    assert reading.hits
    for hit in reading.hits:
        named = {term for line in hit.lines for term in line.terms}
        assert not named & {"NVIDIA GPU", "Load balancer"}, hit.case.id
