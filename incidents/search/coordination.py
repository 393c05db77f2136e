"""The word groups whose share a case's lexical score is multiplied by (`ranking.lexical_rows`).

A case matching more of the query's word groups ranks higher (`backends.Backend.rank`), each
group counting alike. For a pasted line that weighed its failure as much as any word of its
boilerplate: `CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of
79.15 GiB of which 1.2 GiB is free` is 14 groups, of which `CUDA out of memory` is one, so a
case quoting the message's `allocate`, `GPU`, `capacity` and `free` outranked the cases that
ran out of memory (a new user's walkthrough: the bare phrase found IL-0452 first, the pasted
message not in the first three). So in a message pasted whole quoting printed output
(`SearchPlan.signatures`: it shows an error code by the code's patterns), the groups holding
one of its failure tokens (`out of memory`) count as much as all its other groups together,
as log matching reads a line by its failure tokens before its other words. The groups are
listed again to weigh more: a backend reads each distinct group's matches once, however
often the share names it. A message pasted whole:

- opens with its failure, as printed messages do (`ncclRemoteError: A call failed ...`):
  `got Xid 149 on one GB200 GPU and then every node in that NVL72 rack faulted` is an
  account of a failure whose other words say which (weighed so, the second case of that
  tuning query lost its strong label);
- is at least `MESSAGE_GROUPS` groups long: `Xid 63 row remap pending near loss spikes and
  divergence` names a code and describes the failure (weighed so, the second validation
  set's recall@5 fell 0.949 -> 0.945);
- quotes no phrase (`training job hangs with "Watchdog caught collective operation timeout"
  after a node was replaced`): the quotes mark what was printed, the other words are the
  reader's own account, and the node replacement case that does not quote the message is
  its answer.

Only the share changes: every word is still searched, and ranks a case by bm25 / ts_rank.
"""

from __future__ import annotations

from collections.abc import Sequence

from .query import Atom
from .text import words

# A query of at least this many word groups opening with its failure is read as a message
# pasted whole (`coordination`); shorter ones (`Xid 63 row remap pending near loss spikes`)
# are a failure named and described in the reader's words, which say which case answers.
MESSAGE_GROUPS = 8


def coordination(
    groups: list[list[Atom]],
    literal: list[list[Atom]],
    signatures: Sequence[str] = (),
    codes: Sequence[str] = (),
) -> tuple[list[list[Atom]], list[list[Atom]]]:
    """The groups the share is read over and the literal groups alike (`groups` and `literal`
    are parallel, as `query.expand_with_vocabulary` writes them; `literal` may be empty): in
    a message pasted whole, the groups holding one of `signatures` (failure tokens as
    `logmatch.signature_tokens` reads them) listed again, as printed, until they weigh as
    much as the others; the groups unchanged otherwise (see the module docstring).
    `codes`: the names of the error codes the message shows by their patterns
    (`codes.CodeVocabulary.find`), which each repeated group also holds (`_with_codes`)."""
    quoted = any(atom.quoted for group in (literal or groups) for atom in group)
    tokens = [] if quoted else [tuple(word.lower() for word in words(token)) for token in signatures]
    holding = [
        i for i, group in enumerate(groups) if any(_holds(a.folded, t) for a in group for t in tokens if t)
    ]
    if not holding or holding[0] != 0 or len(groups) < MESSAGE_GROUPS:
        return groups, literal  # words typed about a failure, not a message pasted whole
    again = [i for i in holding for _ in range(len(groups) - len(holding) - 1)]
    printed = [_with_codes(group, codes) for group in (literal or groups)]
    coordinate = [*groups, *(printed[i] for i in again)]
    return coordinate, [*literal, *(printed[i] for i in again)] if literal else []


def _with_codes(group: list[Atom], codes: Sequence[str]) -> list[Atom]:
    """`group` and, as further spellings, the names of `codes` it lacks. A message prints its
    failure in one release's spelling (`torch.OutOfMemoryError: CUDA out of memory`, where
    cases write `torch.cuda.OutOfMemoryError`, `CUDA error: out of memory` or only the code
    they carry, `cudaErrorMemoryAllocation`): repeated as printed, a group no case holds
    weighed as much as the failure and told no case from another, so the cases quoting the
    message's boilerplate (`allocate`, `GiB`, `free`) ranked above those that ran out of
    memory. The code is read from the message by its patterns, whatever the spelling."""
    have = {atom.folded for atom in group}
    extra = [Atom(tuple(words(code))) for code in codes]
    return [*group, *(atom for atom in dict.fromkeys(extra) if atom.words and atom.folded not in have)]


def _holds(folded: tuple[str, ...], token: tuple[str, ...]) -> bool:
    """Whether the words `token` stand in `folded` in a row."""
    size = len(token)
    return any(folded[start : start + size] == token for start in range(len(folded) - size + 1))


def numbers_after_words(groups: list[list[Atom]]) -> list[list[Atom]]:
    """`groups` with each number typed alone after a group of words read after that group's
    last word (`NCCL error 12` -> `NCCL error`, `error 12`), as `why` names a number the case
    writes so (`hydration`). Not for the share: a number typed after a word the case words
    otherwise (`vendor err 129`, the case's `vendor error 129`), or after a stop word the
    query drops (`after about 50 steps`), would no longer count where it did."""
    return [_after_word(groups, index) for index in range(len(groups))]


def _after_word(groups: list[list[Atom]], index: int) -> list[Atom]:
    """Group `index`, or when it is a number typed alone after a group of words, that number
    as a phrase after the last word of each of the previous group's spellings (`error 12`)."""
    group = groups[index]
    if index == 0 or len(group) != 1 or group[0].is_phrase or not group[0].words[0].isdigit():
        return group
    number = group[0].words[0]
    lasts = [atom.words[-1] for atom in groups[index - 1] if not atom.words[-1].isdigit()]
    if not lasts:
        return group
    return [Atom((last, number)) for last in dict.fromkeys(lasts)]
