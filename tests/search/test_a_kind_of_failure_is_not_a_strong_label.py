""" "Strong" (and triage's `known: true`) means "we have seen this failure": not "we have seen
this kind of failure". Real on-call input from a new user's walkthrough, each given a strong
label by some door:
- the NCCL watchdog's message alone, a line every NCCL hang ends in, was a strong search hit
  (and triage said `known: true`) while `POST /api/match` called it possible: a query that
  is printed output alone is now labelled as log matching labels that one-line log
  (`signatures.as_its_log_reads`);
- `OSError: [Errno 28] No space left on device` counted ENOSPC and its own message as two
  signatures (a strong hit for a /dev/shm case): an errno's place covers its message
  (`log_tokens._with_message`), one signature;
- a vLLM engine banner echoing `tensor_parallel_size=4` before `CUDA out of memory` lists an
  all-reduce hang quoting that key first, possible: its keys are no failure signature
  (`log_confidence`: a setting counts no unit), so it is never strong.
"""

from __future__ import annotations

import pytest

from incidents.search import read_log, search_cases
from incidents.search.log_confidence import Shared, names_the_failure, specific_units
from incidents.search.log_text import unique_lines
from incidents.search.log_tokens import failure_tokens
from incidents.search.signatures import printed_only

pytestmark = pytest.mark.django_db

WATCHDOG = "Watchdog caught collective operation timeout"
WATCHDOG_WORK = f"{WATCHDOG}: WorkNCCL(SeqNum=5, OpType=ALLREDUCE)"
ENOSPC_LOG = 'torch.save(state_dict, "/mnt/ckpt/x.pt")\nOSError: [Errno 28] No space left on device\n'
VLLM_OOM_LOG = (
    "INFO 05-14 09:31:02 llm_engine.py:161] Initializing an LLM engine (v0.4.2) with config:"
    " model='/models/llama-70b', tensor_parallel_size=4, dtype=torch.bfloat16, enforce_eager=False\n"
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1215,'
    " in profile_run\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity"
    " of 79.15 GiB\n"
)


def labels(hits) -> dict[str, str]:
    return {hit["id"]: hit["confidence"] for hit in hits}


@pytest.mark.parametrize("line", [WATCHDOG, WATCHDOG_WORK])
def test_the_watchdog_message_alone_is_possible_at_every_door(client, line):
    # Before: IL-0463 strong in search (and IL-0615 on `OpType=ALLREDUCE` with the WorkNCCL
    # part), triage known: true, while the log match said possible.
    searched = labels(client.get("/api/cases/", {"q": line}).json()["results"])
    matched = labels(
        client.post("/api/match", {"text": line}, content_type="application/json").json()["results"]
    )
    triage = client.post("/api/triage", {"symptoms": line}, content_type="application/json").json()
    assert searched["IL-0463"] == matched["IL-0463"] == "possible"
    assert "strong" not in {*searched.values(), *matched.values()}
    assert triage["known"] is False
    assert "strong" not in {hit["confidence"] for hit in triage["cases"]}


def test_a_printed_line_is_told_from_words_typed_about_it():
    assert printed_only(WATCHDOG)
    assert printed_only(WATCHDOG_WORK)
    assert printed_only("[Rank 12] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5)")
    assert not printed_only(f'training job hangs with "{WATCHDOG}" after a node was replaced')
    assert not printed_only("NCCL hang after replacing a node")


def test_words_typed_beside_the_watchdog_line_still_find_the_node_replacement_strongly():
    query = f'training job hangs with "{WATCHDOG}" after a node was replaced'
    first = search_cases(query=query).hits[0]
    assert (first.case.id, first.confidence) == ("IL-0429", "strong")


def test_a_single_xid_line_pasted_into_search_is_still_strong():
    # Two signatures at two places of one line: log matching calls it strong, and so does search.
    line = "NVRM: Xid (PCI:0000:b7:00): 79, pid=1913, GPU has fallen off the bus."
    assert printed_only(line)
    assert read_log(line).hits[0].confidence == "strong"
    first = search_cases(query=line).hits[0]
    assert (first.case.id, first.confidence) == ("IL-0523", "strong")


@pytest.mark.parametrize(
    "line",
    ["OSError: [Errno 28] No space left on device", "Error: ENOSPC: no space left on device, write"],
)
def test_an_errno_and_its_message_are_read_at_one_place(line):
    tokens = failure_tokens(unique_lines(line))
    [(code_start, code_end)] = tokens["ENOSPC"].at[line]
    [(start, end)] = tokens["no space left on device"].at[line]
    assert code_start <= start and end <= code_end


def test_the_no_space_log_is_no_strong_match(client):
    # Before: IL-0603 (/dev/shm too small for NCCL in CI pods) strong on ENOSPC, its message
    # and Storage full, all read from line 2; triage known: true.
    body = client.post("/api/match?limit=3", ENOSPC_LOG, content_type="text/plain").json()
    found = labels(body["results"])
    assert found["IL-0603"] == "possible"
    assert "strong" not in found.values()
    [hit] = [h for h in read_log(ENOSPC_LOG).hits if h.case.id == "IL-0603"]
    assert {"ENOSPC", "no space left on device", "Storage full"} <= set(hit.matched_terms)
    triage = client.post("/api/triage", {"text": ENOSPC_LOG}, content_type="application/json").json()
    assert triage["known"] is False


def test_an_errno_read_apart_from_its_message_is_still_its_own_piece():
    # The code on one line and a case's symptom on another are two places, as before.
    shared = (
        Shared("ENOSPC", "token:errno", 2, ((1, 0, 8),)),
        Shared("NCCL_SHM_DISABLE", "token:env", 2, ((2, 0, 16),)),
    )
    assert specific_units(shared, 173) == 3
    assert names_the_failure(shared, 173)


def test_a_configuration_banner_is_no_strong_evidence():
    # Its settings still rank the case quoting them (IL-0463) first: weighed less (as code
    # names, or not at all), two tuning logs whose cases the configuration names
    # (prefix caching with MLA, CUDA_LAUNCH_BLOCKING) fell from 2nd to 3rd-7th.
    hits = read_log(VLLM_OOM_LOG).hits
    assert "IL-0518" in [hit.case.id for hit in hits[:3]]
    assert all(hit.confidence != "strong" for hit in hits)
