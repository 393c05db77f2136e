"""Accelerator families: "NVIDIA A100 80GB" and "NVIDIA A100 40GB" are both the A100 family.

Cases name the accelerator model as the source states it (fixtures use one spelling per
model). A family is the model without
its memory size or form factor, so charts and family filters group one chip generation.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

# A trailing memory size ("80GB", "96 GB"), form factor ("SXM", "PCIe", "NVL") or note in
# parentheses ("(DGX A100)") is not part of the family name.
_VARIANT = re.compile(r"(\s+(\d+\s*GB|SXM\d?|PCIe|NVL|\([^)]*\)))+\s*$", re.IGNORECASE)


def family_of(accelerator: str) -> str:
    """The family of an accelerator model name: "NVIDIA H100 80GB" -> "NVIDIA H100"."""
    return _VARIANT.sub("", accelerator.strip()) or accelerator.strip()


def by_family(counts: Iterable[tuple[str, int]]) -> list[tuple[str, int, tuple[str, ...]]]:
    """(family, cases, the spellings it groups) from (accelerator, cases), most cases first."""
    totals: dict[str, int] = defaultdict(int)
    members: dict[str, list[str]] = defaultdict(list)
    for name, n in counts:
        family = family_of(name)
        totals[family] += n
        members[family].append(name)
    ordered = sorted(totals, key=lambda family: (-totals[family], family))
    return [(family, totals[family], tuple(sorted(members[family]))) for family in ordered]
