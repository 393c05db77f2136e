"""The encoder keeps vectors of texts it encoded in memory (`encoder._memo`) and forgets
them all when `MEMO_LIMIT` would be passed: a call that clears it still returns the vectors
of texts the memo held before (the step after a bulk import encodes 2,500 passages a
batch, and its twentieth batch met a passage seen in an earlier one)."""

from __future__ import annotations

import numpy as np
import pytest

from incidents.search import encoder

pytestmark = pytest.mark.skipif(not encoder.available(), reason="needs the model package")


def test_a_call_that_clears_the_memo_still_returns_what_it_held(monkeypatch, settings):
    settings.EMBEDDING_CACHE_DIR = ""  # the model itself, not the disk cache
    monkeypatch.setattr(encoder, "_memo", {})
    monkeypatch.setattr(encoder, "MEMO_LIMIT", 3)
    first = encoder.encode(["nccl watchdog timeout", "xid 79 fallen off the bus"])
    assert len(encoder._memo) == 2
    # One held text and two new ones: 2 + 2 > 3, so the memo is cleared during this call.
    again = encoder.encode(["nccl watchdog timeout", "checkpoint write stalls", "loss spikes"])
    assert np.allclose(again[0], first[0], atol=1e-6)
    assert len(encoder._memo) == 2  # only what this call encoded is kept
    alone = encoder.encode(["checkpoint write stalls"])
    assert np.allclose(again[1], alone[0], atol=1e-6)
