"""A strong search hit of a pasted line holds its failure signature, or most of its words.

A query may be a line a program printed: `[Rank 3] Watchdog caught collective operation
timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, ...)`. The relevance model reads ranks and
shares of words (`fusion.py`), so the case first by words was strong there: a torch.compile
case holding `ranks`, `collective`, `watchdog` and `OpType=ALLREDUCE` (half of the line's
word groups), what the log of any NCCL hang shares, but not the line's own message. Log
matching reads the line by its failure tokens (`logmatch.signature_tokens`: the error phrase,
an exception or code name, ...). A strong case holds one of those the query shows, or more
than half of the query's word groups (`MOST`: found by what else was said, as the case of a
node replacement is by `training job hangs ... after a node was replaced` beside the quoted
watchdog message); otherwise it shares the line's noise, not its failure, and is possible.
A case quoting the line keeps its label whatever numbers differ (`FileNotFoundError ...
tmp-checkpoint-500`, a case quoting another step's).

Only for a query showing an error code by the code's patterns (`SearchPlan.signatures`): it
quotes printed output. Words typed about a failure (`uncorrectable ECC failed row remap`)
paraphrase its messages, which the case may word otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .backends import Backend
from .fusion import POSSIBLE, STRONG, Candidate
from .query import Atom
from .text import words

# A case matching more than this share of the query's word groups is found by them, with or
# without the line's failure tokens.
MOST = 0.5


def holding_a_signature(
    candidates: list[Candidate], signatures: Sequence[str], backend: Backend
) -> list[Candidate]:
    """`candidates` with each strong one that matches at most `MOST` of the query's word
    groups and whose text holds none of the failure tokens `signatures` labelled possible
    (same order, same scores). One query when there are signatures and such a candidate
    (`Backend.atom_hits_among`), none otherwise."""
    doubtful = [c.case_id for c in candidates if c.confidence == STRONG and c.share <= MOST]
    if not signatures or not doubtful:
        return candidates
    atoms = [Atom(tuple(words(token))) for token in signatures]
    demoted = set(doubtful) - {case_id for case_id, _ in backend.atom_hits_among(atoms, doubtful)}
    return [dataclasses.replace(c, confidence=POSSIBLE) if c.case_id in demoted else c for c in candidates]
