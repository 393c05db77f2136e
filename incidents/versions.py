"""Version comparison for "am I affected?" (`affected` ranges of cases).

The rule, the same for every component: a version is read with the `packaging` library
(PEP 440) after dropping a leading `v` (`v23.9.2`) and a Debian epoch (`1:535.104.05`, as
`dpkg -l` and `apt` print a package's version: read as part of the version, then left out of
the comparison). The epoch is the Debian package's own counter, bumped when its packaging
changes scheme; the cases' ranges are written in upstream versions, which have none, so
honouring it would put `1:535.104.05` after every bound and never match. That covers the schemes of the
components cases name: NCCL (`2.19.3`; a package suffix `2.18.1-1` reads as a post-release,
after `2.18.1`), the NVIDIA driver (`535.104.05`, compared number by number, so 05 is 5),
CUDA (`12.4`), PyTorch (`2.1.0`, `2.1.0+cu121`, `2.4.0a0`), DCGM, ROCm, GPU Operator.
A version `packaging` cannot read (`r0.3.0`, a commit hash, free text) has no order: a
range bound written that way is "unknown ordering" and only an exact match of the text in
`versions` says anything about it.

A range (OSV semantics) includes a version when it is listed in `versions`, or when the
version is at or after `introduced` (inclusive), before `fixed` (exclusive) and at or
before `last_affected` (inclusive). `introduced: "0"` is OSV's "every earlier version":
the source says all versions before the fix (or up to `last_affected`) are affected. A
range with only `versions` includes exactly those versions.

A version written with fewer numbers than the one asked about names its series, as sources
write them ("hangs with NCCL 2.26", "the 525 driver"): listed `2.26` includes 2.26.2, and
`last_affected: "2.26"` includes every 2.26.x, up to the range's `fixed` when it has one
(PyTorch `2.7` fixed in 2.7.1 holds 2.7.0, not 2.7.1). As a lower bound (`introduced`) or `fixed`
it is the series' first release (2.26 = 2.26.0), which orders the same way.

A range with an upper bound (`fixed` or `last_affected`) but no `introduced` does not say
where the problem began, so it has no lower bound to stand on: the earliest version it
lists is the lower bound we know. A version from there up to the upper bound is affected;
a version before it (or any version, when the range lists none) is "unknown", reported
apart as possibly affected, never as affected. So a case seen on NCCL 2.22.3 and fixed in
2.23.4 does not claim 2.10.3, unless its source says "2.22.3 and earlier" (then the
range says `introduced: "0"`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from packaging.version import InvalidVersion, Version

Verdict = Literal["affected", "not_affected", "unknown"]

# A Debian epoch: digits and a colon before the upstream version (`1:2.18.3-1`).
DEBIAN_EPOCH = re.compile(r"^\d+:(?=\d)")


def in_series(text: str, wanted: Version) -> bool:
    """Whether `text` names a release series that `wanted` belongs to: `2.26` holds 2.26.2,
    `525` holds 525.105.17; a full or pre/post-release version names only itself."""
    series = parse_version(text)
    if series is None or series.pre or series.post or series.dev or series.local:
        return False
    size = len(series.release)
    return size < len(wanted.release) and wanted.release[:size] == series.release


def _at_or_after_fix(item: dict[str, Any], wanted: Version) -> bool:
    """A listed series stops at the range's fix: PyTorch `2.7` fixed in 2.7.1 leaves 2.7.1 out."""
    fixed = parse_version(str(item.get("fixed") or ""))
    return fixed is not None and wanted >= fixed


def parse_version(text: str) -> Version | None:
    """`text` as a comparable version, or None when it has no order (see the module rule:
    `v2.1.0` and `1:2.1.0` read as 2.1.0)."""
    cleaned = DEBIAN_EPOCH.sub("", text.strip(), count=1)
    if cleaned[:1] in ("v", "V") and cleaned[1:2].isdigit():
        cleaned = cleaned[1:]
    try:
        return Version(cleaned)
    except InvalidVersion:
        return None


def sent_version(text: str) -> str:
    """A version as a client sends it, made ready to compare and to show back: surrounding
    space dropped, and pip's exact pin `==` (`==2.1.0`, from `torch==2.1.0` written as a
    JSON value) read as the version it pins. Other specifiers (`>=2.1`) name no one version
    and stay as sent, for `parse_version` to refuse."""
    return text.strip().removeprefix("==").strip()


@dataclass(frozen=True)
class RangeVerdict:
    """Whether a range includes a version, and why in words ("2.19.3 is listed",
    "introduced 2.19.1 <= 2.19.3 < fixed 2.20.3", "fixed 'r0.3.0' has no order")."""

    verdict: Verdict
    why: str


def range_verdict(item: dict[str, Any], version: str) -> RangeVerdict:
    """Apply an `affected[]` item to `version` (already known to parse)."""
    wanted = parse_version(version)
    assert wanted is not None, version
    for listed in item.get("versions", []):
        if listed.strip() == version.strip() or parse_version(listed) == wanted:
            return RangeVerdict("affected", f"{listed} is listed as affected")
        if in_series(listed, wanted) and not _at_or_after_fix(item, wanted):
            return RangeVerdict("affected", f"{version} is in the {listed} series listed as affected")
    bounds = {key: item.get(key) for key in ("introduced", "fixed", "last_affected") if item.get(key)}
    if not bounds:
        return RangeVerdict("not_affected", "not among the versions listed")
    parsed = {key: parse_version(str(value)) for key, value in bounds.items()}
    unordered = [f"{key.replace('_', ' ')} {bounds[key]!r}" for key, value in parsed.items() if value is None]
    if unordered:
        return RangeVerdict("unknown", f"{', '.join(unordered)} has no order to compare {version} with")
    introduced, fixed, last = parsed.get("introduced"), parsed.get("fixed"), parsed.get("last_affected")
    if introduced is not None and wanted < introduced:
        return RangeVerdict("not_affected", f"{version} is before introduced {bounds['introduced']}")
    if fixed is not None and wanted >= fixed:
        return RangeVerdict("not_affected", f"{version} is at or after fixed {bounds['fixed']}")
    if last is not None and wanted > last and not in_series(str(bounds["last_affected"]), wanted):
        return RangeVerdict("not_affected", f"{version} is after last affected {bounds['last_affected']}")
    upper = []
    if fixed is not None:
        upper.append(f"< fixed {bounds['fixed']}")
    if last is not None:
        upper.append(f"<= last affected {bounds['last_affected']}")
    if introduced is None:
        return _without_introduced(item, version, wanted, upper)
    return RangeVerdict("affected", " ".join([f"introduced {bounds['introduced']} <= {version}", *upper]))


def _without_introduced(
    item: dict[str, Any], version: str, wanted: Version, upper: list[str]
) -> RangeVerdict:
    """A version within the upper bounds of a range with no `introduced`: affected from the
    earliest listed version on, otherwise unknown (the range does not say where it began)."""
    listed = [
        (parsed, text) for text in item.get("versions", []) if (parsed := parse_version(text)) is not None
    ]
    if listed:
        earliest, text = min(listed)
        if wanted >= earliest:
            return RangeVerdict("affected", " ".join([f"earliest listed {text} <= {version}", *upper]))
        return RangeVerdict(
            "unknown",
            f"no introduced version: {version} is before the earliest listed {text}; possibly affected",
        )
    return RangeVerdict(
        "unknown", f"no introduced version and none listed: {version} {' '.join(upper)}; possibly affected"
    )
