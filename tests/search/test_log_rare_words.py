"""Words a log shares with few cases (a Triton config's `decoupled: True`, the `turbomind`
model) rank those cases, even when no error code or failure token names them; such a case is
never more than a weak hit on words alone, and a word most cases contain counts for nothing."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import log_rare_words, read_log
from incidents.search.backends import get_backend
from incidents.search.query import Atom

pytestmark = pytest.mark.django_db

# A Triton server whose Python backend leaks host memory while streaming (decoupled mode):
# the log shows the configuration and the resident memory growing, and no error at all.
LOG = """I0328 06:11:02.515430 1 grpc_server.cc:4819] Started GRPCInferenceService at 0.0.0.0:33337
I0328 06:11:02.515622 1 http_server.cc:3477] Started HTTPService at 0.0.0.0:33338
$ grep -A2 model_transaction_policy /workspace/models/model_repository/turbomind/config.pbtxt
model_transaction_policy {
  decoupled: True
}
$ python3 bench_stream.py --url localhost:33337 --concurrency 32 --requests 200000 --stream
$ while true; do echo "$(ps -o rss= -C tritonserver) $(ps -o rss= -C triton_python_backend_stub)"; done
06:15 3120448 1834112
08:45 8003516 6725312
## GPU memory flat at 71.3 GiB throughout; same bench without --stream: RSS flat
"""
TRITON_LEAK = "IL-0528"  # Triton's Python backend leaked memory streaming in decoupled mode


def test_the_rare_words_of_a_log_find_the_case_that_tells_them():
    hits = read_log(LOG).hits
    ids = [h.case.id for h in hits]
    assert TRITON_LEAK in ids[:3]
    hit = hits[ids.index(TRITON_LEAK)]
    by_line = {line.line_number: line for line in hit.lines}
    assert by_line[5].line == "decoupled: True"
    assert by_line[5].terms == ("decoupled",)
    assert by_line[5].spans == ((0, 9),)  # the word is highlighted where the line shows it
    assert "turbomind" in by_line[3].terms
    # Words alone say the case could be it, not that the log shows its failure.
    assert hit.confidence == "weak"
    assert hit.matched_terms == ()


def test_without_the_rare_words_the_case_is_not_found(monkeypatch):
    monkeypatch.setattr(log_rare_words, "RARE_WORDS", 0)
    assert TRITON_LEAK not in [h.case.id for h in read_log(LOG).hits]


def test_a_word_many_cases_contain_counts_for_nothing():
    published = Case.objects.published().count()
    share = log_rare_words.RARE_SHARE
    common = [w for w in ("memory", "started", "flat") if _cases_with(w) > share * published]
    assert common == ["memory", "started", "flat"]  # each in more than 2% of the cases
    for hit in read_log(LOG).hits:
        for line in hit.lines:
            assert not {t.lower() for t in line.terms} & set(common), (hit.case.id, line)


def _cases_with(word: str) -> int:
    return len({case_id for case_id, _ in get_backend().atom_hits([Atom((word,))])})


def test_one_shared_rare_word_is_not_enough():
    # `opcode` is in one case, which carries none of this log's Xid 79 lines: alone, it
    # would have put that case above the cases carrying the code.
    log = (
        "NVRM: Xid (PCI:0000:87:00): 79, pid=4242, GPU has fallen off the bus\n"
        "node-17:2231:2301 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with error 12,"
        " opcode 0\n"
    )
    assert _cases_with("opcode") == 1
    hits = read_log(log).hits
    assert not [h.case.id for h in hits if any("opcode" in line.terms for line in h.lines)]
