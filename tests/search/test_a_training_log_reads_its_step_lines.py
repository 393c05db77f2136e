"""A training loop that prints only `Step N | lm_loss=... | grad_norm=...` lines is read as
a training job (`log_job_kind`; it read as no kind), and a checkpoint write's `OSError:
[Errno 28] No space left on device` is one signature, the errno and its own message at one
place of the line (`log_tokens._with_message`): read as two, the line alone made a CI pod's
/dev/shm case strong, a case sharing nothing else with the log (a new user's report, issue 17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.log_job_kind import job_kind
from incidents.search.log_lines import LogLines
from incidents.search.log_text import unique_lines
from incidents.search.log_tokens import failure_tokens

pytestmark = pytest.mark.django_db

LOG = (Path(__file__).parent / "logs" / "checkpoint-write-enospc.log").read_text(encoding="utf-8")
CI_SHM = "IL-0603"  # PyTorch CI pods' 64Mi /dev/shm: NCCL's ENOSPC
TRAINING_STORAGE = "IL-0569"  # a training run's shared filesystem filled, writes failed


def kind_of(text: str) -> str | None:
    return job_kind(LogLines(unique_lines(text)))


@pytest.mark.parametrize(
    "line",
    [
        "Step 1200 | lm_loss=2.114 | grad_norm=0.93 | 11.2 s/it",
        "[2026-12-07 03:12:40] step 14800/20000 | lr 2.0e-4 | 391204 tok/s",
        "iter: 300 train_loss: 1.93",
    ],
)
def test_a_step_or_loss_line_reads_as_training(line):
    assert kind_of(line) == "training"


def test_a_serving_line_is_still_inference():
    assert kind_of('INFO: 10.0.0.5:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK') == "inference"


def test_the_log_reads_as_training_and_no_hit_is_strong():
    read = read_log(LOG)
    assert read.job_kind == "training"
    labels = {hit.case.id: hit.confidence for hit in read.hits}
    assert labels[CI_SHM] == "possible"
    assert labels[TRAINING_STORAGE] == "possible"
    assert "strong" not in labels.values()


def test_the_errno_and_its_message_are_read_at_one_place():
    line = "OSError: [Errno 28] No space left on device"
    found = failure_tokens(unique_lines(line))
    assert found["ENOSPC"].at[line] == [(10, len(line))]
    assert found["no space left on device"].at[line] == [(20, len(line))]
    # Without the message the errno keeps its own place.
    bare = "OSError: [Errno 28] while writing /mnt/ckpt/step_15000"
    assert failure_tokens(unique_lines(bare))["ENOSPC"].at[bare] == [(10, 18)]
