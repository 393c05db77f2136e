"""A code name or a setting a log shares with a case (`tensor_parallel_size=4` in the config
line a vLLM server echoes, a function of its stack) says where the log was or how the job was
configured, not what failed: it ranks a case less than a failure token does (a setting not at
all, a code name at half weight), and its words are not counted again as rare words. What
`confidence` reads is unchanged."""

from __future__ import annotations

import pytest

from incidents.search import logmatch, read_log

pytestmark = pytest.mark.django_db

# The config line every vLLM server of that version echoes, as one case quotes it.
CONFIG = (
    "INFO 02-12 10:03:11 [api_server.py:913] args: Namespace(model='meta-llama/Llama-2-70b-hf',"
    " tensor_parallel_size=4, disable_custom_all_reduce=False, enforce_eager=False, max_model_len=4096)\n"
)
VLLM_HANG = "IL-0463"  # vLLM servers hung; the case quotes that config line

# The config line, then an out-of-memory error while capturing CUDA graphs with NCCL 2.19.3.
GRAPH_OOM_LOG = CONFIG + (
    "INFO 02-12 10:03:20 [pynccl.py:69] vLLM is using nccl==2.19.3\n"
    "INFO 02-12 10:04:02 [model_runner.py:1115] Loading model weights took 32.1 GB\n"
    "INFO 02-12 10:04:09 [model_runner.py:1480] Capturing cudagraphs for decoding.\n"
    "ERROR 02-12 10:04:31 [engine.py:141] torch.OutOfMemoryError: CUDA out of memory. Tried to"
    " allocate 1.25 GiB. GPU 2 has a total capacity of 79.15 GiB of which 611.88 MiB is free.\n"
)
NCCL_CUMEM_OOM = "IL-0518"  # NCCL 2.19's cuMem allocations cost memory per captured CUDA graph

# The config line, then CUDA failing to start on hardware without forward compatibility.
COMPAT_LOG = CONFIG + (
    "ERROR 02-12 10:03:12 [engine.py:141] RuntimeError: Unexpected error from cudaGetDeviceCount()."
    " Error 804: forward compatibility was attempted on non supported HW\n"
)
COMPAT_804 = "IL-0533"  # vLLM images whose CUDA runtime was newer than the host driver: error 804


def ranked(log: str) -> list[str]:
    return [h.case.id for h in read_log(log).hits]


def test_the_case_of_the_failure_ranks_above_the_case_quoting_the_config():
    ids = ranked(GRAPH_OOM_LOG)
    assert ids[0] == NCCL_CUMEM_OOM
    assert ids.index(VLLM_HANG) > 0
    ids = ranked(COMPAT_LOG)
    assert ids[0] == COMPAT_804
    assert ids.index(VLLM_HANG) > 0


def test_the_shared_settings_still_explain_the_hit():
    hit = next(h for h in read_log(GRAPH_OOM_LOG).hits if h.case.id == VLLM_HANG)
    assert {"tensor_parallel_size", "disable_custom_all_reduce", "enforce_eager"} <= set(hit.matched_terms)
    assert hit.confidence == "possible"


def test_a_settings_words_are_not_counted_again_as_rare_words():
    for hit in read_log(GRAPH_OOM_LOG).hits:
        for line in hit.lines:
            assert not {"enforce", "eager"} & {t.lower() for t in line.terms}, (hit.case.id, line)


def test_at_full_weight_the_settings_outrank_the_failure(monkeypatch):
    monkeypatch.setattr(logmatch, "NAMING_SHARE", {"identifier": 1.0, "setting": 1.0})
    assert ranked(GRAPH_OOM_LOG)[0] == VLLM_HANG


def test_the_labels_read_the_whole_weight():
    labels = {h.case.id: h.confidence for h in read_log(GRAPH_OOM_LOG).hits}
    assert labels[NCCL_CUMEM_OOM] == "possible"
    assert labels[VLLM_HANG] == "possible"
