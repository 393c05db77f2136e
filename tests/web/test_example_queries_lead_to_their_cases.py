"""The queries the pages suggest (the home page's examples, the placeholders of both search
boxes) each open on the case they are there to show, as a strong match: a new user's first
search teaches them what the search is good for."""

from __future__ import annotations

import re
from html import unescape

import pytest

from .html import element, links

pytestmark = pytest.mark.django_db

# Each suggested query and the case it is meant to show, with why that case is the answer.
MEANT = {
    "vLLM hangs in NCCL all-reduce": "IL-0463",  # vLLM ranks stuck in NCCL all-reduce
    "training hangs at first checkpoint save": "IL-0451",  # save_checkpoint hung after the first save
    "Xid 79": "IL-0523",  # one GPU fell off the bus (Xid 79)
    "ECC error crashed training": "IL-0465",  # an uncorrectable ECC error crashed training
    "loss spikes despite gradient clipping": "IL-0436",  # PaLM: ~20 spikes despite clipping
    "Kubernetes DNS": "IL-0453",  # Kubernetes API servers fell over, DNS discovery with them
    "Thai characters in answers on TPU": "IL-0456",  # TPU misconfiguration corrupted generated tokens
    "NCCL error 12 on RoCE": "IL-0450",  # NET/IB completion with error 12 on RoCE
    "one slow GPU slows the whole job": "IL-0432",  # one slow A100 cut BLOOM's throughput
}


def placeholder(html: str) -> str:
    box = re.search(r'<input type="search" id="q"[^>]*placeholder="e\.g\. ([^"]+)"', html)
    assert box, "no search box with an example placeholder"
    return unescape(box.group(1))


def first_hit(client, query: str) -> tuple[str, str]:
    """(case id, confidence) of the search page's first listed match for `query`."""
    html = client.get("/cases/", {"q": query}).content.decode()
    card = element(element(html, "section", class_="results"), "article", class_="case-card")
    confidence = re.search(r'class="confidence confidence-(\w+)"', card).group(1)
    return re.search(r'<span class="case-id">(IL-\d+)</span>', card).group(1), confidence


def suggested_queries(client) -> list[str]:
    home = client.get("/").content.decode()
    search = client.get("/cases/").content.decode()
    examples = [text for _, text in links(element(home, "ul", class_="examples-list"))]
    return [*examples, placeholder(home), placeholder(search)]


def test_every_suggested_query_is_pinned_here(client):
    assert sorted(suggested_queries(client)) == sorted(MEANT)


@pytest.mark.parametrize("query", sorted(MEANT))
def test_a_suggested_query_opens_on_its_case_as_a_strong_match(client, query):
    assert first_hit(client, query) == (MEANT[query], "strong")
