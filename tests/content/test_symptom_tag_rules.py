"""Symptom tags are applied by the rules their descriptions state (fixtures/vocab.json), checked
against the case texts wherever a rule can be read off the words (issue 13: "every case with an
NCCL watchdog timeout carries NCCL timeout").

A case's observed text is its title, summary, symptom description and detection. A mention in
a negated clause ("no error or NCCL timeout came", "without ECC errors") reports that the
symptom was absent, so it does not call for the tag. Remediation, checks and lessons are
advice, not symptoms, and are not read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from tests.conftest import VOCAB_FILE, fixture_ids, load_fixture

NEGATION = re.compile(r"\b(no|not|without|never|nor|neither|didn't|did not)\b", re.IGNORECASE)
CLAUSE_END = re.compile(r"[.;!?\n]|, (but|while|and then)\b")


def observed_text(document: dict) -> str:
    return "\n".join(
        [
            document["title"],
            document["summary"],
            document["symptoms"]["description"],
            document.get("detection") or "",
        ]
    )


def affirmed(pattern: re.Pattern[str], text: str) -> str | None:
    """The first mention of `pattern` in `text` whose clause does not negate it."""
    for match in pattern.finditer(text):
        before = text[: match.start()]
        ends = list(CLAUSE_END.finditer(before))
        clause = before[ends[-1].end() if ends else 0 :]
        if not NEGATION.search(clause):
            return match.group(0)
    return None


@dataclass(frozen=True)
class Rule:
    tag: str
    mentions: str  # a regular expression (case-insensitive) for what calls for the tag
    why: str  # the part of the tag's description the rule checks

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.mentions, re.IGNORECASE)


XID_CODE = r"\bXid[ :]*\(?[^)\n]{0,40}?\)?[: ]*\d+\b|\bXids? \d+"
RULES = [
    Rule(
        "NCCL timeout",
        # "the NCCL timeout" alone is the setting (raised, lowered); "NCCL timeouts" and
        # "... timed out" are events.
        r"watchdog caught collective operation timeout|collective operation timeout"
        r"|watchdog (fired|timed out|timeout)|\b(NCCL|c10d|collective)s?( \w+){0,2} (timeouts\b|timed out)",
        "a collective operation exceeded its timeout, usually reported by the NCCL or c10d watchdog",
    ),
    Rule("Xid error", XID_CODE, "tag it whenever the case reports an Xid code"),
    Rule(
        "GPU unavailable",
        r"\bXid[ :]*79\b|fallen off the bus|fell off the bus|falling off the bus",
        'a GPU disappeared from the node (Xid 79, "fallen off the bus")',
    ),
    Rule(
        "ECC error",
        r"\b(uncorrectable|correctable|double[- ]bit)( GPU)?( memory)? ECC\b|\bECC errors?\b"
        r"|cudaErrorECCUncorrectable|\bXid[ :]*(48|63|64|92|94|95)\b",
        "GPU or host memory reported correctable or uncorrectable ECC errors",
    ),
    Rule(
        "Out of memory",
        r"CUDA out of memory|CUDA OOM|CUDA error: out of memory|OutOfMemoryError|OOM[- ]kill"
        r"|out-of-memory killer|ran out of (GPU |host )?memory|exhausted its memory",
        "GPU or host memory ran out (CUDA out of memory, the kernel OOM killer)",
    ),
    Rule(
        "Storage full",
        r"no space left on device|\bENOSPC\b|\bEDQUOT\b|disk quota exceeded|database space exceeded",
        "a filesystem, volume or quota filled up",
    ),
    Rule(
        "NCCL error",
        r"\bnccl(System|Remote|Internal|UnhandledCuda)Error\b|unhandled system error|NCCL WARN",
        "NCCL reported an error other than a timeout (unhandled system error, remote error, internal error)",
    ),
    Rule(
        "Pods stuck Pending",
        r"\bImagePullBackOff\b|\bErrImagePull\b|\bFailedScheduling\b",
        "pods waited in Pending or failed to start because images or scheduling did not complete",
    ),
]

# Mentions that the rule's words catch but that are not this case's symptom, each read and
# explained; keep this list short.
NOT_A_SYMPTOM = {
    ("IL-0497", "Xid error"): "the Xid 13/43 events it mentions were ruled out as unrelated to the hang",
    ("IL-0605", "Xid error"): (
        "its Xid 45s were the job's own cleanup, as on the rack's other nodes, not the fault"
    ),
    ("IL-0600", "Out of memory"): (
        "one benchmark configuration's memory limit, not the failure the case is about"
    ),
}


def published() -> list[dict]:
    return [d for d in (load_fixture(i) for i in fixture_ids()) if d["status"] == "published"]


def test_every_rule_is_about_a_tag_of_the_vocabulary():
    tags = {t["name"] for t in json.loads(VOCAB_FILE.read_text())["symptom_tags"]}
    assert {rule.tag for rule in RULES} <= tags
    assert {tag for _, tag in NOT_A_SYMPTOM} <= tags


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.tag)
def test_a_case_whose_text_shows_the_symptom_carries_its_tag(rule):
    missing = {}
    for document in published():
        if rule.tag in document["symptoms"]["tags"] or (document["id"], rule.tag) in NOT_A_SYMPTOM:
            continue
        if mention := affirmed(rule.pattern, observed_text(document)):
            missing[document["id"]] = mention
    assert missing == {}, f"{rule.tag} ({rule.why}) is missing on cases that mention it"


def test_xid_error_is_only_on_cases_that_report_an_xid_code():
    pattern = re.compile(XID_CODE, re.IGNORECASE)
    untagged = [
        d["id"]
        for d in published()
        if "Xid error" in d["symptoms"]["tags"] and not pattern.search(observed_text(d))
    ]
    assert untagged == []


def test_silent_data_corruption_is_hardware_and_wrong_results_is_software():
    # Silent data corruption: "tag it only when the cause was the hardware, not a software bug";
    # Wrong results: "software ... returned wrong outputs; wrong results from faulty hardware are
    # Silent data corruption".
    misfiled = [
        (d["id"], tag, d["root_cause"]["category"])
        for d in published()
        for tag, wrong_cause in (
            ("Silent data corruption", "Software bug"),
            ("Wrong results", "Hardware fault"),
        )
        if tag in d["symptoms"]["tags"] and d["root_cause"]["category"] == wrong_cause
    ]
    assert misfiled == []


def test_hang_tags_follow_the_kind_of_job():
    # Inference hang: "an inference server ... stopped producing tokens"; Training hang: "a
    # distributed job stopped making progress" (a training job, or the jobs of a fleet study).
    wrong = [
        (d["id"], tag)
        for d in published()
        for tag, workloads in (("Inference hang", {"inference"}), ("Training hang", {"training", "fleet"}))
        if tag in d["symptoms"]["tags"] and d["environment"].get("workload") not in workloads
    ]
    assert wrong == []


def test_a_negated_mention_does_not_call_for_the_tag():
    pattern = RULES[0].pattern
    assert affirmed(pattern, "The job hung; no error or NCCL timeout came, only GPUs at 100%.") is None
    assert affirmed(pattern, "It hung. Watchdog caught collective operation timeout after 30 min.") == (
        "Watchdog caught collective operation timeout"
    )
