"""The matched words a search hit's `why` names (`results.why_listed`): the meaningful ones.

A snippet marks every word the backend matched, and some say nothing to a reader: stop
words a stemmed query word matches (`one` stems to `on` in FTS5's porter tokenizer, so
"training hangs on one node" listed hits as `Matches: on.`), function words the stop-word
list lacks (`one`, `via`), and bare numbers (`rank 3 hangs` matched a `3` anywhere in a
case: `Matches: 3, rank.`). The ranking still reads them; `why` leaves them out:

- a word only of stop words (`text.STOP_WORDS`), `FUNCTION_WORDS` and lone letters is left out;
- a bare number is left out unless the query typed it as part of an identifier
  (`identifier_numbers`: `-9`, `xid79`, `Xid:79`, `2.18.3`, the `79` of `xid 79`, the
  `137` of `exit code 137`), or the case writes it after a matched word (`rank 3`,
  `error 12`), shown together; a number typed with its minus (`-9`) counts where the case
  writes it so, shown so;
- marks joined by a connector (`all`-`reduce`: PostgreSQL marks each word of a phrase,
  FTS5 the phrase) are one word as written (`all-reduce`), so the backends say it alike.

When none is left, `why_listed` says why in another way (the terms the case carries, or
whether it has every word of the query).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from .text import STOP_WORDS, stem, words

if TYPE_CHECKING:
    from .query import ParsedQuery
    from .results import Snippet

# Words that carry no meaning of their own in a "Matches:" list, beyond PostgreSQL's stop
# words (`text.STOP_WORDS`): number words, and function words that list leaves out.
FUNCTION_WORDS = frozenset(
    """
one two three four five six seven eight nine ten every many much another also via per may
might must shall could would yet upon onto within among etc eg ie vs thus either neither
whether though although unless till toward towards get gets got us
""".split()
)

# Marks separated by one of these (`all-reduce`, `torch.distributed`, `NCCL_IB`, `2.18.3`)
# are one word as the case writes it.
_CONNECTOR = re.compile(r"[-_./:]")
# A number marked after a marked word and this gap (`rank 3`, `Xid: 79`, `error=12`) is
# written as part of what that word names.
_NUMBER_GAP = re.compile(r"[:=#]?\s+|[:=#]")
# A number in a typed chunk, with the minus written right before it (`-9`, `exitcode=-9`).
_TYPED_NUMBER = re.compile(r"(-?)(\d+)")
# What surrounds a chunk of a query without being part of it (`100%` is a bare number too).
_CHUNK_EDGES = "\"'()[]{},;!?%"


def identifier_numbers(query: str, parsed: ParsedQuery) -> frozenset[str]:
    """The numbers `query` types as part of an identifier, as typed (`-9` with its minus):
    in a chunk holding more than a number (`-9`, `xid79`, `Xid:79`, `2.18.3`, `sm_80`), and
    in a phrase of the query as typed (`parsed.literal_groups`: `xid 79` read as one
    identifier, `exit code 137` naming a term, `"error 12"` quoted). A number typed alone
    (`rank 3`) is in none; excluded chunks (`-word`) are not read."""
    found: set[str] = set()
    for chunk in query.split():
        body = chunk.strip(_CHUNK_EDGES)
        if not body or body.isdigit() or (body[0] == "-" and len(body) > 1 and not body[1].isdigit()):
            continue
        for match in _TYPED_NUMBER.finditer(body):
            start = match.start()
            signed = match.group(1) and (start == 0 or not body[start - 1].isalnum())
            found.add(f"-{match.group(2)}" if signed else match.group(2))
    for group in parsed.literal_groups:
        for atom in group:
            if atom.is_phrase:
                found.update(word for word in atom.words if word.isdigit())
    return frozenset(found)


def matched_words(snippet: Snippet | None, numbers: Collection[str] = ()) -> list[str]:
    """The meaningful words and phrases `snippet` marks, as the case writes them (spaces
    collapsed), in order, each once (case ignored); `numbers`: `identifier_numbers` of the
    query. See the module docstring for what is left out and what is joined."""
    runs: list[tuple[str, str]] = []  # (a run of marks as written, the text before it)
    parts: list[str] = []
    before = gap = ""
    for segment in snippet.segments if snippet else ():
        if not segment.matched:
            gap += segment.text
            continue
        joined = parts and (
            not gap or _CONNECTOR.fullmatch(gap) or (_NUMBER_GAP.fullmatch(gap) and segment.text.isdigit())
        )
        if joined:
            parts.append(gap + segment.text)
        else:
            if parts:
                runs.append(("".join(parts), before))
            parts, before = [segment.text], gap
        gap = ""
    if parts:
        runs.append(("".join(parts), before))
    shown: dict[str, str] = {}
    for run, preceding in runs:
        text = " ".join(run.split())
        if text.isdigit() and _signed(preceding):
            text = f"-{text}"
        if text and says_something(text, numbers):
            shown.setdefault(text.lower(), text)
    return list(shown.values())


def says_something(text: str, numbers: Collection[str] = ()) -> bool:
    """Whether a marked word or phrase `text` means something to a reader: it holds a word
    that is no stop word, function word or lone letter (`all-reduce`, `NCCL`, `Xid 79`,
    `mlx5`), or it is numbers only, written as one identifier (`2.18.3`) or typed as one
    (`text` in `numbers`, `-9` with its minus)."""
    tokens = words(text)
    if any(not token.isdigit() and not _filler(token) for token in tokens):
        return True
    if tokens and all(token.isdigit() for token in tokens):
        return len(tokens) > 1 or text in numbers
    return False


def _filler(token: str) -> bool:
    low = token.lower()
    return low in STOP_WORDS or low in FUNCTION_WORDS or (len(low) == 1 and low.isalpha())


def _signed(preceding: str) -> bool:
    """Whether a number written right after `preceding` carries its minus (`exitcode -9`,
    `(-9)`), not a range's dash (`1-9`)."""
    return preceding.endswith("-") and (len(preceding) == 1 or not preceding[-2].isalnum())


def typed_words_held(
    typed: Sequence[Sequence[tuple[str, ...]]],
    body: str | None,
    shown: Sequence[str],
    numbers: Collection[str] = (),
) -> list[str]:
    """The query's word groups as typed (`typed`: each group's spellings, as words) that the
    case's indexed `body` holds (each word by its light stem, `text.stem`, a phrase's words in
    a row) and the words `shown` (the marked words `why` names already) do not say, each as
    typed (its first spelling the body holds): a passage shows the words of one place, so
    `NCCL watchdog timeout` listed IL-0610 as `Matches: NCCL.` though it tells of the watchdog,
    and `CrashLoopBackOff vllm` a case naming both as `Matches: vLLM.` (a new user's
    walkthrough). Words that say nothing (`says_something`) and numbers alone (`1.2` typed in
    `1.2 GiB`, any `1` and `2` in a row) are left out."""
    if not body:
        return []
    held = [stem(word) for word in words(body)]
    said = {stem(word) for item in shown for word in words(item)}
    found: list[str] = []
    for group in typed:
        for spelling in group:
            text = " ".join(spelling)
            stems = [stem(word) for word in spelling]
            if (
                all(word.isdigit() for word in spelling)
                or not says_something(text, numbers)
                or set(stems) <= said
            ):
                continue
            if _in_a_row(stems, held):
                found.append(text)
                said.update(stems)
                break
    return found


def _in_a_row(stems: list[str], held: list[str]) -> bool:
    """Whether `stems` stand in `held` in a row."""
    size = len(stems)
    first = stems[0]
    return any(held[i : i + size] == stems for i, word in enumerate(held) if word == first)
