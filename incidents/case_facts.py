"""What a case page states as known, and the one line naming what the sources leave unknown.

A case document keeps unknown facts as null (the JSON keeps its nulls); a page that gave each
its own "not known" row would shout nine times. The page shows the known facts as rows and
names the unknown ones once: "Not known from the sources: severity, users affected, TTD".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .durations import humanize_duration
from .models import Case, Term


@dataclass(frozen=True)
class Fact:
    label: str
    value: Any
    abbr_title: str = ""  # expansion of an abbreviated label (TTD, TTR)
    url: str = ""  # the vocabulary page of the value (the accelerator's term)


@dataclass(frozen=True)
class CaseFacts:
    incident: list[Fact] = field(default_factory=list)  # severity, scope, users, region, TTD, TTR
    environment: list[Fact] = field(default_factory=list)  # cluster, accelerator, counts
    unknown: list[str] = field(default_factory=list)  # labels, in page order, lower case


def grouped(value: Any) -> Any:
    """An integer with thousands separators as titles write them ("10,000"); anything else
    (None, text, a float, a bool) as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return value


def case_facts(case: Case) -> CaseFacts:
    """Known facts of `case` by section, and the labels of the unknown ones (in page order:
    incident facts, environment, then the date it occurred, trigger and detection)."""
    incident = [
        Fact("Severity", case.severity),
        Fact("Scope", case.scope),
        Fact("Users affected", case.users_affected),
        Fact("Region", case.region),
        Fact("TTD", humanize_duration(case.time_to_detect), "Time to detect"),
        Fact("TTR", humanize_duration(case.time_to_resolve), "Time to resolve"),
    ]
    environment = [
        Fact("Cluster", case.cluster),
        Fact("Accelerator", case.accelerator, url=_term_url(case.accelerator_term)),
        Fact("Accelerator count", grouped(case.accelerator_count)),
        Fact("Nodes", grouped(case.node_count)),
    ]
    unknown = [_lower(f.label) for f in (*incident, *environment) if f.value in (None, "")]
    if case.workload is not None:
        # Not listed as unknown when absent: no workload means the case is not specific to one.
        environment.insert(0, Fact("Workload", case.workload.name))
    if not case.components:
        unknown.append("components")
    if case.occurred is None:
        unknown.append("when it occurred")
    if not case.root_cause_trigger:
        unknown.append("trigger")
    if not case.detection:
        unknown.append("how it was detected")
    return CaseFacts(
        incident=[f for f in incident if f.value not in (None, "")],
        environment=[f for f in environment if f.value not in (None, "")],
        unknown=unknown,
    )


def _term_url(term: Term | None) -> str:
    return term.get_absolute_url() if term is not None else ""


def _lower(label: str) -> str:
    # Abbreviations keep their capitals: "TTD", not "ttd".
    return label if label.isupper() else label.lower()
