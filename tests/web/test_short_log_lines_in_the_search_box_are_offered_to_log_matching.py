"""Log lines pasted into the search box are offered to log matching whatever their length:
only a paste over the search's 500 characters was (tests/web/
test_log_lines_in_the_search_box_go_to_log_matching.py), so three lines of an NCCL watchdog
log, 300 characters, were searched as words and never read line by line. A short paste is
still searched, the offer beside its results; words typed are not offered
(`selectors.pasted_log.looks_like_log`)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from incidents.selectors.pasted_log import looks_like_log

from .html import element, text_of

pytestmark = pytest.mark.django_db

LOG = (
    "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout\n"
    "[rank3]:[E ProcessGroupNCCL.cpp:1413] [PG 0 Rank 3] Timeout at NCCL work: 2841\n"
    "terminate called after throwing an instance of 'c10::DistBackendError'"
)
# The same lines as a one-line search box sends them: Chromium puts a space for each line
# break (tests/browser/test_a_short_log_in_the_search_box_is_offered_to_log_matching.py),
# some browsers join the lines.
SPACED, JOINED = LOG.replace("\n", " "), LOG.replace("\n", "")


def offer(html: str) -> str | None:
    found = re.search(r'<div class="note log-offer">.*?</div>', html, re.DOTALL)
    return found.group(0) if found else None


@pytest.mark.parametrize("pasted", [LOG, SPACED, JOINED])
def test_a_short_log_is_searched_and_offered_to_log_matching(client, pasted):
    assert len(pasted) < 500
    html = client.get("/cases/", {"q": pasted}).content.decode()
    shown = offer(html)
    assert shown is not None
    assert text_of(shown).startswith("These lines look like a log: log matching reads them line by line")
    form = element(shown, "form")
    action = re.search(r'action="([^"]+)"', form).group(1)
    sent = unescape(re.search(r'name="text" value="([^"]*)"', form).group(1))
    assert (action, sent) == ("/match/", pasted)
    assert "Nothing was searched" not in html  # searched, unlike a paste over 500 characters
    assert element(html, "p", id="result-count")
    matched = client.post(action, {"text": sent})
    codes = [found.term.slug for found in matched.context["reading"].error_codes]
    assert "processgroupnccl-watchdog-timeout" in codes


@pytest.mark.parametrize(
    "typed",
    [
        "NCCL error 12 on RoCE",
        "RuntimeError: CUDA out of memory",  # one error line: a search
        "nccl timeout\nH100",  # two lines of words
        "training hang\nafter checkpoint restore",
    ],
)
def test_words_typed_are_not_offered(client, typed):
    assert not looks_like_log(typed)
    assert offer(client.get("/cases/", {"q": typed}).content.decode()) is None


@pytest.mark.parametrize(
    "lines",
    [
        "2018-01-09 03:12:44.118 W | etcdserver: apply entries took too long\n"
        "2018-01-09 03:13:01.551 W | etcdserver: alarm NOSPACE raised by peer 8e9e05c52164694d",
        'Thread 2713 (idle): "MainThread"\n'
        "    broadcast (torch/distributed/distributed_c10d.py:1191)\n"
        "    _bcast_pipe_scalar (deepspeed/runtime/pipe/engine.py:542)",
        "[ 8812.114] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
        "[ 8812.120] NVRM: GPU at PCI:0000:3b:00: GPU-5a1c",
    ],
)
def test_time_stamps_error_codes_and_stack_frames_read_as_a_log(lines):
    assert looks_like_log(lines)
