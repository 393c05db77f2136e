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

A query that is printed output and nothing else (`printed_only`: no word typed about the
failure beside it) is a log of one line: it is labelled as log matching labels that log
(`as_its_log_reads`), so the search, `POST /api/match` and triage say the same of it. The
watchdog's message alone (`Watchdog caught collective operation timeout`, with or without its
`WorkNCCL(SeqNum=5, OpType=ALLREDUCE)`) is what every NCCL hang ends in: one signature, a
kind of failure; it was a strong search hit of the case quoting it (and of a case sharing
`OpType=ALLREDUCE`), and so a triage `known: true`, while log matching called it possible.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from .backends import Backend
from .fusion import POSSIBLE, STRONG, Candidate
from .query import Atom
from .text import STOP_WORDS, words

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


# A word as a program prints it, not as a person types it: with a digit or a sign of code
# (`SeqNum=5`, `[Rank`, `ms)`, `c10d::`), capitals inside it (`WorkNCCL`, `OpType`) or all in
# capitals (`ALLREDUCE`, `NCCL`).
_CODE_SHAPED = re.compile(r"[0-9=()\[\]{}<>_/\\:@#]|[a-z][A-Z]|^[A-Z]{2,}$")
_CHUNK = re.compile(r"\S+")


def printed_only(query: str) -> bool:
    """Whether every word of `query` is inside one of its failure tokens (as log matching
    reads them: `log_tokens.failure_tokens`, the error phrase, an exception or code name, a
    setting) or is shaped as code (`_CODE_SHAPED`), stop words aside: the query is printed
    output with nothing typed about the failure beside it. `training job hangs after a node
    was replaced "Watchdog caught collective operation timeout"` is not (`training`, `job`,
    `hangs`, `node`, `replaced`); `Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5,
    OpType=ALLREDUCE)` is."""
    from .log_text import unique_lines
    from .log_tokens import failure_tokens  # log matching loads RE2 and its extractors

    lines = unique_lines(query)
    held: dict[str, list[tuple[int, int]]] = {}
    for evidence in failure_tokens(lines).values():
        for line, spans in evidence.at.items():
            held.setdefault(line, []).extend(spans)
    for line in lines:
        for chunk in _CHUNK.finditer(line):
            start, end = chunk.span()
            if any(a < end and start < b for a, b in held.get(line, ())):
                continue
            plain = chunk.group().strip(".,;:!?'\"`")
            if _CODE_SHAPED.search(plain) or all(w in STOP_WORDS for w in words(plain.lower())):
                continue
            return False
    return True


def as_its_log_reads(candidates: list[Candidate], query: str, signatures: Sequence[str]) -> list[Candidate]:
    """`candidates` with each strong one that log matching does not label strong for `query`
    read as a log (`logmatch.read_log`, its first 10 hits) labelled possible, when `query`
    quotes printed output (`signatures`) and is nothing else (`printed_only`); `candidates`
    unchanged otherwise (and no query). Same order, same scores: the label, not the ranking."""
    if not signatures or not any(c.confidence == STRONG for c in candidates) or not printed_only(query):
        return candidates
    from .logmatch import read_log  # loads the log engine, which a search mostly does not need

    strong = {hit.case.id for hit in read_log(query).hits if hit.confidence == STRONG}
    demoted = {c.case_id for c in candidates if c.confidence == STRONG} - strong
    return [dataclasses.replace(c, confidence=POSSIBLE) if c.case_id in demoted else c for c in candidates]
