"""A scale the words state ("512-GPU ...", "on 1,024 GPUs", "2k accelerators") is context,
not words to match: searched as words, "512-GPU" matched the title of a 512-GPU case whose
failure has nothing to do with the one asked about and put it first (issue 16's own
scenario), and in a search `nccl timeout on 512 gpus` kept 3 of the 13 NCCL-timeout matches
(those holding `512`) with a fleet-statistics survey quoting "512+ GPU" strong first (a new
user's walkthrough, W9). Triage weighs the scale against each case's (`triage._context_weight`);
search reads the words without the number (`planning.plan`)."""

from __future__ import annotations

import re

# "512-GPU", "1,024 GPUs", "2k accelerators": a scale stated in the words.
_SCALE_IN_WORDS = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\s*k)?\s*[- ]?\s*(GPUs?|TPUs?|accelerators?|chips?)\b",
    re.IGNORECASE,
)
# A number after one of these words is a code's, not a count of accelerators: "Xid 79 GPU
# fell off the bus" states no scale of 79.
_CODE_WORD_BEFORE = re.compile(
    r"\b(?:s?xid|error|errno|err|code|exit|status|signal|rc)[\s:=#]*$", re.IGNORECASE
)


def read_scale(symptoms: str) -> tuple[str, int | None]:
    """The words to search and the scale they state (the largest, when several):
    "512-GPU training job hangs" is searched as "GPU training job hangs", 512 is the scale.

    A scale is context (triage weighs it, `triage._context_weight`), not words to match: as words,
    "512-GPU" matched the title of a 512-GPU case whose failure has nothing to do with the
    one asked about, and put it first (issue 16's own scenario). A number after a code's
    name (`Xid 79 GPU`, `error 12 GPUs`) is the code's, left in the words."""
    scales: list[int] = []

    def unit(match: re.Match[str]) -> str:
        if _CODE_WORD_BEFORE.search(match.string, 0, match.start()):
            return match.group(0)
        scales.append(int(match.group(1).replace(",", "")) * (1000 if match.group(2) else 1))
        return match.group(3)

    words = _SCALE_IN_WORDS.sub(unit, symptoms)
    return words, max(scales, default=None)


def read_scale_unquoted(query: str) -> tuple[str, int | None]:
    """`read_scale` of the parts of `query` outside double quotes: a quoted phrase is
    searched as typed (`"failure on 512 GPUs"`, a title quoted to find it)."""
    parts = query.split('"')
    scales = []
    for i in range(0, len(parts), 2):
        parts[i], scale = read_scale(parts[i])
        scales.append(scale)
    return '"'.join(parts), max((s for s in scales if s is not None), default=None)


def scale_note(scale: int) -> str:
    """The note of a search whose words stated a scale (`read_scale`), searched without it."""
    return f"Read {scale:,} as the job's scale, not as a word to search."
