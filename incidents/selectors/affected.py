""" "Am I affected?": the published cases whose `affected` ranges include given versions.

`POST /api/affected`, the `/affected/` form and MCP read through `affected_cases`; version
comparison follows `incidents.versions`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from ..affected import ComponentIndex, normalised_range
from ..models import Case, CaseKey, CaseQuerySet
from ..versions import RangeVerdict, parse_version, range_verdict, sent_version
from .params import empty_detail, is_blank

MAX_COMPONENTS = 20  # known components compared in one check
# Entries read in one check (keys of the JSON object, lines of the form): a `pip freeze` of a
# training image lists a few hundred packages, of which a handful are components.
MAX_ENTRIES = 500
MAX_VERSION_CHARS = 100
MAX_LINES_CHARS = 4000  # of the form's text: 20 components with long names fit many times over
SHOWN_LINE_CHARS = 60  # of a line quoted back as unreadable

# `name==version`, `name=version`, `name: version` (the first such sign splits), else
# `name version` (the last space splits: component names have spaces, versions none). The
# colon of a Debian epoch (`nvidia-driver 1:535.104.05`, `libnccl2=1:2.18.3-1`: digits that
# begin a word, a colon, a digit) is part of the version, never a sign: the regex matches it
# whole, before the plain colon, so that the loop passes over it.
_SIGN = re.compile(r"==|=|(?<![^\s=:])\d+:(?=\d)|:")
SIGNS = ("==", "=", ":")


@dataclass(frozen=True)
class VersionProblem:
    """A component no vocabulary term names, or a version with no order; `component` is
    the key as sent, `suggestions` the nearest component names. `skipped`: the entry was
    left out and the others answered (an unknown component among known ones, a `pip
    freeze` line such as `numpy==1.26.4`; form text past its limit); otherwise nothing is
    answered until it is fixed."""

    component: str
    detail: str
    value: str | None = None
    suggestions: tuple[str, ...] = ()
    skipped: bool = False


def refusing(problems: Sequence[VersionProblem]) -> bool:
    """Whether `problems` stop the check (one is not a skipped entry): then every problem,
    skipped ones too, is the answer (400, a tool error); else the skipped ones are named
    beside the answer."""
    return any(not p.skipped for p in problems)


@dataclass(frozen=True)
class AffectedMatch:
    """One case range that includes (or cannot be compared with) a sent version.

    `component` is the term's name, `version` as sent, `range` the case's `affected[]`
    item, `verdict` affected or unknown with `why`, `fixed` the range's fixed version or a
    reference's `fixed_in`, `workaround` the case's first remediation step."""

    case: Case
    component: str
    version: str
    range: dict
    verdict: RangeVerdict
    fixed: str | None
    workaround: str | None


@dataclass(frozen=True)
class AffectedAnswer:
    affected: list[AffectedMatch]  # newest case first
    unknown: list[AffectedMatch]  # ranges whose bounds have no order
    checked: dict[str, str]  # component name -> version, as compared


def is_versions(given: object) -> TypeGuard[dict[str, str]]:
    """Whether `given` is what `check_versions` reads from a JSON door: an object of
    component -> version strings (its keys and versions then checked one by one)."""
    return isinstance(given, dict) and all(isinstance(v, str) for v in given.values())


def versions_detail(given: object) -> str:
    """What every JSON door (`POST /api/affected`, MCP `am_i_affected`) says of a `versions`
    that `is_versions` refuses, a phrase after its name: what it takes, and for an empty or
    blank text that it is empty (as a required text is told: `empty_detail`)."""
    wanted = 'a JSON object of component -> version strings, such as {"NCCL": "2.19.3"}'
    if isinstance(given, str) and is_blank(given):
        return f"{empty_detail(given)}: send {wanted}"
    return f"send {wanted}"


def check_versions(
    versions: Mapping[str, str] | Sequence[tuple[str, str]],
) -> tuple[dict[str, tuple[str, str]], list[VersionProblem]]:
    """({term slug: (name, version)}, problems): each key names a component term (name,
    slug or synonym, any case: `nvidia-nccl-cu12` and `torch`, as pip names them, are NCCL
    and PyTorch) and each value must be a version `packaging` reads. A key no term names is
    skipped (a problem with `skipped` set and the nearest names) when another key is known,
    so a pasted `pip freeze` answers for the components it holds; when none is, each is a
    problem that stops the check. Two keys naming one component (`NCCL` and `nccl `, or one
    line twice on the form) are a problem naming both: which version to compare is the
    sender's call, not last-wins. So is a known component's version with no order. At most
    `MAX_ENTRIES` entries and `MAX_COMPONENTS` known components. `versions` is a mapping (a
    JSON object) or (key, version) pairs in the order given (the form's lines). A value is
    read as `versions.sent_version` says (`==2.1.0` is 2.1.0, as `torch==2.1.0` is on the
    form) and kept so in the answer. One query."""
    pairs = list(versions.items()) if isinstance(versions, Mapping) else list(versions)
    components = ComponentIndex.load()
    resolved: dict[str, tuple[str, str]] = {}
    first_key: dict[str, str] = {}  # term slug -> the key that named it first
    problems: list[VersionProblem] = []
    if not pairs:
        problems.append(VersionProblem("versions", "give at least one component and its version"))
    if len(pairs) > MAX_ENTRIES:
        problems.append(VersionProblem("versions", f"at most {MAX_ENTRIES} components and versions"))
    for given, version in pairs[:MAX_ENTRIES]:
        ref = components.resolve(given)
        if ref is None:
            problems.append(
                VersionProblem(given, "unknown component", given, components.closest(given), skipped=True)
            )
            continue
        if ref.slug in first_key:
            problems.append(
                VersionProblem(
                    given,
                    f"names the same component ({ref.name}) as {first_key[ref.slug]!r}; "
                    "give each component once",
                )
            )
            continue
        first_key[ref.slug] = given
        if isinstance(version, str):
            version = sent_version(version)
        if not isinstance(version, str) or not version or len(version) > MAX_VERSION_CHARS:
            problems.append(
                VersionProblem(given, f"give the version as text of 1 to {MAX_VERSION_CHARS} characters")
            )
        elif parse_version(version) is None:
            problems.append(
                VersionProblem(given, "not a version that can be compared (e.g. 2.18.1, 535.104.05)", version)
            )
        else:
            resolved[ref.slug] = (ref.name, version)
    if len(resolved) > MAX_COMPONENTS:
        problems.append(VersionProblem("versions", f"at most {MAX_COMPONENTS} known components"))
    if not resolved:  # nothing to answer for: the unknown components are the answer
        problems = [dataclasses.replace(p, skipped=False) for p in problems]
    return resolved, problems


def read_version_lines(text: str) -> tuple[list[tuple[str, str]], list[VersionProblem]]:
    """The `/affected/` form's text -> ((component, version) pairs in line order, problems).

    A line is `NCCL 2.19.3`, `torch==2.1.0`, `NCCL=2.18.1` or `NVIDIA driver: 535.104.05`
    (a trailing comma dropped, blank lines skipped); a Debian epoch stays in the version
    (`nvidia-driver 1:535.104.05` -> `1:535.104.05`, compared as `versions.parse_version`
    says). A line with no component or no version is a problem quoting it whole
    (`versions`), never dropped unseen; so is a line of words whose last holds no digit
    (`this is not a version line`: prose, not component `this is not a version` at version
    `line`), skipped (the others answered, as an unknown component is) where a lone name
    (`NCCL`, a version forgotten) stops the check. The lines past
    `MAX_LINES_CHARS` (a line the limit cuts included: its version could read as another)
    are skipped, with a problem saying from which line on (`skipped`). Pairs, not a dict: a
    component given twice is `check_versions`' to refuse, not ours to merge. No query."""
    pairs: list[tuple[str, str]] = []
    problems: list[VersionProblem] = []
    read = text
    if len(text) > MAX_LINES_CHARS:
        read = text[: text.rfind("\n", 0, MAX_LINES_CHARS + 1) + 1]
        first_unread = len(read.splitlines()) + 1
        problems.append(
            VersionProblem(
                "versions",
                f"lines {first_unread} on were not read: at most {MAX_LINES_CHARS:,} characters are read",
                skipped=True,
            )
        )
    for number, raw in enumerate(read.splitlines(), start=1):
        line = raw.strip().rstrip(",").strip()
        if not line:
            continue
        sign = next((m for m in _SIGN.finditer(line) if m.group() in SIGNS), None)
        if sign is not None:
            component, version = line[: sign.start()], line[sign.end() :]
        else:
            component, _, version = line.rpartition(" ")
        component, version = component.strip(), version.strip()
        # Split at a space, a last word without a digit is no version: the line is prose (a
        # note pasted with a `pip freeze`), not "this is not a version" at version "line".
        prose = sign is None and bool(component) and not any(c.isdigit() for c in version)
        if component and version and not prose:
            pairs.append((component, version))
            continue
        shown = line if len(line) <= SHOWN_LINE_CHARS else line[: SHOWN_LINE_CHARS - 1] + "…"
        problems.append(
            VersionProblem(
                "versions",
                f"line {number} ({shown!r}) is not a component and its version; write one a line, as "
                "NCCL 2.19.3, torch==2.1.0 or NVIDIA driver: 535.104.05",
                skipped=prose,
            )
        )
    return pairs, problems


def component_names() -> list[str]:
    """Every component `check_versions` accepts, by its term's name (each also takes its
    slug and synonyms, any letter case), sorted ignoring case: one query."""
    return ComponentIndex.load().names


def cases_with_ranges(slugs: Iterable[str]) -> CaseQuerySet:
    """The published cases with an `affected` range for one of the component term `slugs`,
    through the key index (no query runs here). `affected_cases` and log matching read them."""
    keyed = CaseKey.objects.filter(kind=CaseKey.Kind.AFFECTED, key__in=list(slugs)).values("case_id")
    return Case.objects.published().filter(id__in=keyed)


def affected_cases(resolved: dict[str, tuple[str, str]]) -> AffectedAnswer:
    """The published cases with a range for one of the `resolved` components (from
    `check_versions`) that includes its version, and those whose range cannot be compared.

    Queries: 2 (the cases with a range for one of the components, joined to the key index;
    their terms).
    """
    cases = list(cases_with_ranges(resolved).with_summary().newest_first())
    by_name = {name: version for name, version in resolved.values()}
    affected: list[AffectedMatch] = []
    unknown: list[AffectedMatch] = []
    for case in cases:
        for item in case.affected:
            version = by_name.get(item["component"])
            if version is None:
                continue
            verdict = range_verdict(item, version)
            if verdict.verdict == "not_affected":
                continue
            fixed = item.get("fixed") or next(
                (r["fixed_in"] for r in case.references if r.get("fixed_in")), None
            )
            match = AffectedMatch(
                case=case,
                component=item["component"],
                version=version,
                range=normalised_range(item),
                verdict=verdict,
                fixed=fixed,
                workaround=case.remediation[0] if case.remediation else None,
            )
            (affected if verdict.verdict == "affected" else unknown).append(match)
    return AffectedAnswer(affected=affected, unknown=unknown, checked=by_name)
