"""A log hit's context lines (those sharing only a component's name with the case) are the
ones that help read its evidence. Every PyTorch case of a torchrun job listed the launcher's
banner (`*****`, `Setting OMP_NUM_THREADS ...`) and its blank line, each printed from
`torch/distributed/run.py`, whose path names PyTorch; and NCCL's per-channel lines, the same
but for their numbers, filled a hit's first places (a new user's walkthrough). Such lines
are left out of the hits and counted as ignored (`hit_lines.context_shown`); the evidence
lines and the ranking are unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.search import read_log
from incidents.search.hit_lines import says_a_name

pytestmark = pytest.mark.django_db

TORCHRUN_LOG = (Path(__file__).parent / "logs" / "torchrun-banner-illegal-memory-access.log").read_text(
    encoding="utf-8"
)
BANNER = {1, 2, 3, 4}  # the launcher's banner lines and its blank line, printed by run.py
LAUNCHER_EXIT = 14  # `torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) ...`


def test_the_launchers_banner_is_not_listed_as_context():
    reading = read_log(TORCHRUN_LOG)
    pytorch_cases = [hit for hit in reading.hits if "PyTorch" in hit.matched_terms]
    assert pytorch_cases
    for hit in pytorch_cases:
        numbers = {line.line_number for line in hit.lines}
        assert not numbers & (BANNER | {LAUNCHER_EXIT}), hit.case.id
        assert 18 in numbers  # the ChildFailedError line: evidence (Training job failure)
    # The hint under the CUDA error names CUDA in what it says: kept.
    first = reading.hits[0]
    assert [line.line_number for line in first.lines] == [9, 18, 10, 32]
    # Trimmed lines are no context: the counts still add up.
    assert (reading.lines_with_signature, reading.lines_context, reading.lines_ignored) == (9, 2, 18)


def test_context_lines_differing_only_in_numbers_are_listed_once():
    channels = [f"node07:1234:1400 [0] NCCL INFO Channel {i:02d}/16 : 0 1 2 3 4 5 6 7" for i in range(12)]
    error = (
        "node07:1234:1455 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer"
        " 10.0.0.8<58213> with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_0"
    )
    hit = read_log("\n".join([*channels, error])).hits[0]
    assert hit.case.id in ("IL-0450", "IL-0485")
    assert [line.line_number for line in hit.lines] == [13, 1]


def test_a_name_read_only_in_the_path_that_printed_the_line_is_not_said():
    def places(line: str, name: str) -> list[tuple[int, int]]:
        start = line.index("torch/")
        return [(start, start + len("torch/distributed/"))]

    printed = "W1206 21:14:01.123000 140 torch/distributed/run.py:793] *****"
    assert not says_a_name(printed, ["PyTorch"], places)
    said = "loading torch/distributed/ state from disk"
    assert says_a_name(said, ["PyTorch"], places)
