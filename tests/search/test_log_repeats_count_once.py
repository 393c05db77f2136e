"""A log repeated word for word (every rank printing the same lines, a log pasted twice) is
read as the log once: the repeats count in `lines_repeated` only, never in the error codes'
line numbers, the reading's classification, the hits, their lines or their labels (walk
findings 7, 8 and 34: two copies listed each code line twice and unsorted, and at 14 copies
the later distinct lines had lost their places to the first line's repeats)."""

from __future__ import annotations

import pytest

from incidents.search import read_log
from incidents.search.log_text import LINES_PER_EVIDENCE, Evidence

pytestmark = pytest.mark.django_db

LOG = """\
[2024-05-11 03:16:58] iteration    178/ 250000 | consumed samples:     364544 | lm loss: 2.18E+00 |
[Sat May 11 03:17:12 2024] NVRM: Xid (PCI:0000:b7:00): 79, pid=0, GPU has fallen off the bus.
[Sat May 11 03:17:12 2024] NVRM: GPU 0000:b7:00.0: GPU has fallen off the bus.
[2024-05-11 03:17:13] iteration    180/ 250000 | consumed samples:     368640 | lm loss: 2.18E+00 |
[rank317]:[E511 03:27:13.412871 ProcessGroupNCCL.cpp:607] [Rank 317] Watchdog caught collective \
operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, \
Timeout(ms)=600000) ran for 600011 milliseconds before timing out.
[rank317]:[E511 03:27:13.413210 ProcessGroupNCCL.cpp:621] [Rank 317] Some NCCL operations have \
failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations \
might run on corrupted/incomplete data.
terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG 0 Rank 317] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, \
OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, Timeout(ms)=600000) ran for 600011 \
milliseconds before timing out.
srun: error: node-0412: task 317: Aborted (core dumped)
"""
DISTINCT = LOG.count("\n")


def answer(text: str):
    """Everything a reading says but its line totals."""
    reading = read_log(text)
    return (
        [(c.term.slug, c.line_numbers) for c in reading.error_codes],
        (reading.lines_with_signature, reading.lines_context, reading.lines_ignored, reading.job_kind),
        [
            (
                hit.case.id,
                hit.score,
                hit.confidence,
                hit.why,
                [(line.line_number, line.terms, line.spans) for line in hit.lines],
            )
            for hit in reading.hits
        ],
    )


def test_the_code_lines_are_the_distinct_lines_in_order():
    codes = dict(answer(LOG * 2)[0])
    assert codes["xid-79"] == (2, 3)
    assert codes["processgroupnccl-watchdog-timeout"] == (5, 6, 8)


@pytest.mark.parametrize("copies", [2, 3, 14])
def test_a_log_repeated_word_for_word_reads_as_the_log_once(copies):
    once = answer(LOG)
    assert once[0] == [("xid-79", (2, 3)), ("processgroupnccl-watchdog-timeout", (5, 6, 8))]
    assert once[2][0][2] == "strong"
    assert answer(LOG * copies) == once
    reading = read_log(LOG * copies)
    assert (reading.lines_read, reading.lines_repeated) == (DISTINCT * copies, DISTINCT * (copies - 1))


def test_a_repeated_line_is_listed_once_with_how_often_it_is_printed():
    once = {line.line_number: line.occurrences for line in read_log(LOG).hits[0].lines}
    twice = {line.line_number: line.occurrences for line in read_log(LOG * 2).hits[0].lines}
    assert set(once) == set(twice) and set(once.values()) == {1}
    assert set(twice.values()) == {2}


def test_evidence_keeps_its_first_distinct_lines():
    evidence = Evidence()
    for number, line in [(1, "a"), (1, "a"), (5, "a"), (2, "b"), (6, "b")]:
        evidence.add(number, line)
    assert evidence.lines == [(1, "a"), (2, "b")]
    assert evidence.numbers == {"a": {1, 5}, "b": {2, 6}}
    for number in range(10, 10 + 2 * LINES_PER_EVIDENCE):
        evidence.add(number, f"line {number}")
    assert len(evidence.lines) == LINES_PER_EVIDENCE
    assert evidence.lines[-1] == (10 + LINES_PER_EVIDENCE - 3, f"line {10 + LINES_PER_EVIDENCE - 3}")
