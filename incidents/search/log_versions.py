"""Component versions a pasted log prints next to the component's name (`NCCL version
2.19.3`, `torch==2.7.0`, `vLLM v0.6.3`), and the published cases whose `affected` ranges
include one: the case's failure is known on that version (weak evidence, `log_scores`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2

from incidents.models import Facet, Term
from incidents.selectors.affected import cases_with_ranges
from incidents.versions import range_verdict

from .log_lines import LogLines
from .log_text import Evidence
from .patterns import options
from .text import words


@functools.lru_cache(maxsize=2)
def _version_matcher(names: tuple[tuple[str, str], ...]):
    """One RE2 pattern finding `<component name or synonym> [version|==|v|:] <version>` in
    a line (`NCCL version 2.19.3+cuda12.3`, `torch==2.7.0`, `vLLM v0.6.3`), or None; group
    1 the spelling, group 2 the version. `names`: (spelling, term name), longest first."""
    if not names:
        return None, {}
    alternatives = "|".join(re2.escape(spelling) for spelling, _ in names)
    # Never across a line break (`log_lines.py`): `[^\S\n]` for `\s`, `(?m)` for `^`.
    space = r"[^\S\n]"
    pattern = (
        rf"(?im)(?:^|[^A-Za-z0-9_\n])({alternatives})"
        rf"(?:{space}+version|{space}*==|{space}*:|{space}+v|{space}){space}*v?"
        r"(\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc|post|dev)\d*)?(?:\+[A-Za-z0-9.]+)?)\b"
    )
    return re2.compile(pattern, options()), {spelling.lower(): name for spelling, name in names}


# NVIDIA's NGC framework images are named `nvcr.io/nvidia/<framework>:<YY.MM>-...`: the tag
# is the container's monthly release (`pytorch:24.03` ships PyTorch 2.3.0a0), not the
# framework's version. Other NVIDIA images carry their own version (`nvidia/cuda:12.1.0`,
# `nvidia/gpu-operator:v23.9.1`), so only a YY.MM tag after `nvidia/<name>:` is skipped.
_MONTHLY_TAG = re.compile(r"\d{2}\.\d{2}")


def _is_container_release(line: str, match: Any) -> bool:
    """Whether a version match (`_version_matcher`: group 1 the name, group 2 the version)
    is an NGC framework image and its monthly release tag (`nvidia/pytorch:24.03`)."""
    separator = line[match.end(1) : match.start(2)].strip().rstrip("vV").strip()
    return (
        separator == ":"
        and bool(_MONTHLY_TAG.fullmatch(match.group(2)))
        and line[: match.start(1)].lower().endswith("nvidia/")
    )


def component_versions(
    lines: dict[str, list[int]], terms: list[Term], scanned: LogLines | None = None
) -> dict[tuple[str, str], Evidence]:
    """(component term name, version) -> the lines printing it, for every component of the
    vocabulary the log names with a version number next to it. `scanned`: the keys of
    `lines` joined (`log_lines.py`; joined here when not given)."""
    spellings = {
        (form, t.name)
        for t in terms
        if t.facet == Facet.COMPONENT
        for form in (t.name, *t.synonyms)
        if len(form) >= 3 and words(form)
    }
    matcher, by_spelling = _version_matcher(tuple(sorted(spellings, key=lambda p: (-len(p[0]), p))))
    found: dict[tuple[str, str], Evidence] = {}
    if matcher is None:
        return found
    scanned = scanned or LogLines(lines)
    for line_index, match in scanned.matches(matcher):
        line = scanned.lines[line_index]
        name = by_spelling.get(match.group(1).lower())
        if name is None or _is_container_release(line, match):
            continue
        # A local build tag (`2.19.3+cuda12.3`) is the same release for the ranges.
        evidence = found.setdefault((name, match.group(2).split("+")[0]), Evidence())
        evidence.read_at(line, match.span())
        for number in lines[line]:
            evidence.add(number, line)
    return found


def affected_by(
    versions: dict[tuple[str, str], Evidence], slug_of: dict[str, str]
) -> list[tuple[str, str, str]]:
    """(case id, component, version) for each published case with an `affected` range that
    includes a version the log prints. One query, only when the log prints one."""
    if not versions:
        return []
    slugs = {slug_of[name] for name, _ in versions}
    found = []
    for case_id, ranges in cases_with_ranges(slugs).values_list("id", "affected"):
        for item in ranges:
            for (name, version), _ in versions.items():
                if item.get("component") == name and range_verdict(item, version).verdict == "affected":
                    found.append((case_id, name, version))
    return sorted(set(found))
