"""What a log hit shows: the evidence its case shares with the log (`HitExplainer.evidence_of`,
as `Shared` for its label), where that evidence is in each line (`Spans`, `places_of`),
which lines it lists (signature lines first, then the context lines that say something,
`hit_lines.context_shown`) and why it is listed, in words (`results.why_log_listed`).
"""

from __future__ import annotations

import functools

import re2

from incidents.models import Case, Facet

from .hit_lines import context_shown, fold_repeats
from .log_confidence import Shared
from .log_findings import Findings
from .log_lines import shown_line
from .log_scores import Tally
from .log_terms import term_patterns
from .log_text import LINES_PER_EVIDENCE, Evidence
from .patterns import inside, not_word_spans, options
from .results import Confidence, LogHit, LogLine, why_log_listed
from .text import words

MAX_LINES_PER_HIT = 50
# Of a line, the characters searched for where each piece of evidence is (`Shared.places`):
# evidence past them has no place, and counts as it did before places were read.
PLACE_CHARS = 10_000


class Spans:
    """Where names (terms by their forms and patterns `patterns`, tokens by their words) are
    in lines, each name searched for in each line once: a log's hits show most of the same
    lines (every case with the log's Xid code, its Xid lines)."""

    def __init__(self, patterns: dict[str, list[tuple[str, bool]]]):
        self.patterns = patterns  # name -> (RE2 pattern, whether it is a name or synonym)
        self._found: dict[tuple[str, str], list[tuple[int, int]]] = {}

    def places(self, line: str, name: str) -> list[tuple[int, int]]:
        """The [start, end) spans of `name` in `line`, unmerged."""
        key = (line, name)
        if key not in self._found:
            self._found[key] = self._search(line, name)
        return self._found[key]

    def of(self, line: str, names: list[str]) -> tuple[tuple[int, int], ...]:
        """The merged [start, end) spans of `names` in `line`, in order."""
        found: list[tuple[int, int]] = []
        for name in names:
            found.extend(self.places(line, name))
        merged: list[tuple[int, int]] = []
        for start, end in sorted(s for s in found if s[1] > s[0]):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return tuple(merged)

    def _search(self, line: str, name: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        # A token (no patterns) is searched by its words, where it was read.
        searched = self.patterns.get(name) or [
            (r"(?i)" + r"\W+".join(re2.escape(w) for w in words(name)), False)
        ]
        files: list[tuple[int, int]] | None = None
        for pattern, form in searched:
            try:
                compiled = _compiled(pattern)
            except re2.error:
                continue
            spans = [m.span() for m in compiled.finditer(line)]
            if form and spans:
                # A name is not read inside a source-file or host name (`log_terms.term_forms_in`):
                # not shown there.
                files = not_word_spans(line) if files is None else files
                spans = [span for span in spans if not inside(span, files)]
            found.extend(spans)
        return found


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str):
    return re2.compile(pattern, options())


def places_of(name: str, evidence: Evidence, spans: Spans) -> tuple[tuple[int, int, int], ...]:
    """Where the log shows a piece of evidence, as (line number, start, end): where its
    token or version was read (`Evidence.at`), or where its term's forms and patterns match
    (`spans`, in the first `PLACE_CHARS` of each line), at most `LINES_PER_EVIDENCE` places a
    line, as tokens are read (`log_confidence` compares places)."""
    return tuple(
        (number, start, end)
        for number, line in evidence.lines
        for start, end in (
            evidence.at.get(line, []) if evidence.at else spans.places(line[:PLACE_CHARS], name)
        )[:LINES_PER_EVIDENCE]
    )


class HitExplainer:
    """What each hit of one log shares with it and shows. Scores are summed for every
    candidate; what a case shares is built for the hits only: a broad log has thousands of
    candidates."""

    def __init__(
        self,
        findings: Findings,
        tally: Tally,
        word_reasons: dict[str, list[tuple[str, Evidence]]],
        symptoms_listed: dict[str, int],
    ):
        """`word_reasons`: case id -> the rare words it shares with their lines
        (`log_rare_words`); `symptoms_listed`: case id -> how many symptoms the hit's case
        lists (`Shared.listed`)."""
        self.findings = findings
        self.tally = tally
        self.word_reasons = word_reasons
        self.symptoms_listed = symptoms_listed
        # The RE2 patterns of the terms found, by name (compiled once each, `_compiled`): where
        # each piece of evidence is in its lines, for confidence (`places_of`) and the hits' spans.
        by_id = findings.term_by_id
        self.spans = Spans({by_id[t].name: term_patterns(by_id[t]) for t in findings.term_evidence})
        self.token_cases = tally.token_cases()
        self.found_order = {term_id: n for n, term_id in enumerate(findings.term_evidence)}  # as first seen
        self.component_names = findings.component_names
        self.shared_lines: set[str] = set()  # every line a hit lists (the reading's context lines)
        self._found: dict[str, tuple[list[tuple[str, Evidence]], list[Shared]]] = {}

    def evidence_of(self, case_id: str) -> tuple[list[tuple[str, Evidence]], list[Shared]]:
        """What `case_id` shares with the log: (name, evidence) in the order found (tokens,
        terms, versions), and the same as `Shared` for `confidence`."""
        if case_id not in self._found:
            self._found[case_id] = self._evidence_of(case_id)
        return self._found[case_id]

    def _evidence_of(self, case_id: str) -> tuple[list[tuple[str, Evidence]], list[Shared]]:
        findings, tally = self.findings, self.tally
        named: list[tuple[str, Evidence]] = []
        shared: list[Shared] = []
        for token, cases, count in self.token_cases:
            if case_id in cases:
                evidence = findings.tokens[token]
                named.append((token, evidence))
                shared.append(
                    Shared(token, f"token:{evidence.kind}", count, places_of(token, evidence, self.spans))
                )
        for term_id in sorted(tally.terms_of.get(case_id, ()), key=self.found_order.__getitem__):
            term = findings.term_by_id[term_id]
            evidence = findings.term_evidence[term_id]
            # A code spelled as a failure token the case already matched (`Xid 79`) is that
            # signature: the hit names it once, on the token's lines.
            if term.facet != Facet.ERROR_CODE or all(n.lower() != term.name.lower() for n, _ in named):
                named.append((term.name, evidence))
            how = "pattern" if term_id in findings.by_pattern else "name"
            listed = self.symptoms_listed.get(case_id, 0) if term.facet == Facet.SYMPTOM else 0
            places = places_of(term.name, evidence, self.spans)
            shared.append(Shared(term.name, f"{how}:{term.facet}", term.case_count, places, listed))
        for name, version in tally.versions_of.get(case_id, ()):
            evidence = findings.versions[(name, version)]
            named.append((f"{name} {version}", evidence))
            places = places_of(f"{name} {version}", evidence, self.spans)
            shared.append(Shared(f"{name} {version}", "version:affected", 1, places))
        return named, shared

    def hit(self, case: Case, score: float, label: Confidence, like: str | None) -> LogHit:
        """The hit of `case`, ranked at `score` and labelled `label`; `like`: the first hit's
        id when `case` is listed higher as a case like it (`log_scores.lift_like_the_first`),
        else None. Adds the lines it lists to `shared_lines`."""
        case_id = case.pk
        named = self.evidence_of(case_id)[0]
        shown, shares = self._lines_shown([*named, *self.word_reasons.get(case_id, [])])
        self.shared_lines.update(shares)
        rare = [word for word, _ in self.word_reasons.get(case_id, [])]
        versions = {f"{name} {version}" for name, version in self.tally.versions_of.get(case_id, ())}
        listed = [(number, names) for (_, number), (_, names), _ in shown]
        shared_names = _first_lines(listed, leaving_out={*self.component_names, *rare, *versions})
        return LogHit(
            case=case,
            score=round(score, 4),
            matched_terms=tuple(dict.fromkeys(name for name, _ in named)),
            lines=[
                LogLine(
                    line_number=number,
                    line=shown_line(line),
                    terms=tuple(names),
                    spans=self.spans.of(shown_line(line), names),
                    occurrences=count,
                )
                for (_, number), (line, names), count in shown
            ],
            confidence=label,
            why=why_log_listed(
                shared_names,
                context=[name for name, _ in named if name in self.component_names],
                words=rare,
                versions=sorted(versions),
                like=like,
            ),
            signature=bool(shared_names),
            like=like,
        )

    def _lines_shown(
        self, evidence: list[tuple[str, Evidence]]
    ) -> tuple[list[tuple[tuple[bool, int], tuple[str, list[str]], int]], set[str]]:
        """The lines a hit lists of its `evidence` (name, evidence), at most
        `MAX_LINES_PER_HIT`: ((context only, first line number), (line, the names it
        shows), how many lines of the log it stands for), signature lines first, then the
        context lines that say something, each repeat but for digits folded into the first
        (`hit_lines.fold_repeats`); and every line those stand for (the reading counts them
        all as lines a hit shares)."""
        # Each distinct line once, at its first number, as the reading counts lines: a line
        # the log repeats (every rank printing it) was listed at each number it had, so a hit
        # could list more lines than the reading said carry anything.
        per_line: dict[str, tuple[int, list[str]]] = {}
        numbers: dict[str, set[int]] = {}
        for name, found in evidence:
            for number, line in found.lines:
                first, names = per_line.setdefault(line, (number, []))
                numbers.setdefault(line, set()).update(found.numbers.get(line, (number,)))
                if number < first:
                    per_line[line] = (number, names)
                if name not in names:
                    names.append(name)
        # The lines that carry a signature first, then those sharing only a component's name
        # (`NCCL INFO Bootstrap`), each in line order: a log's first lines are mostly
        # such context, and listed by number they filled the hit's places (and MCP's first
        # five) ahead of the watchdog line that was the evidence.
        context_only = {line for line, (_, names) in per_line.items() if set(names) <= self.component_names}
        # Of those, the ones that say something (`hit_lines.context_shown`): not a launcher's
        # banner printed from a path naming the component.
        readable = context_shown(
            ((line, per_line[line][1]) for line in sorted(context_only, key=lambda x: per_line[x][0])),
            self.spans.places,
        )
        listed = sorted(
            ((line in context_only, number), line)
            for line, (number, _) in per_line.items()
            if line not in context_only or line in readable
        )
        folded = fold_repeats((key, line, per_line[line][1], len(numbers[line])) for key, line in listed)
        shown = [(key, (line, names), count) for key, line, names, count in folded]
        return shown[:MAX_LINES_PER_HIT], {line for _, line in listed}


def _first_lines(shown: list[tuple[int, list[str]]], leaving_out: set[str]) -> list[tuple[str, int]]:
    """(name, the number of the first line listing it) of each name a hit's lines list
    (`shown`: line number and names, in the order the hit lists them), in that order,
    but those in `leaving_out` (component names, rare words: said apart in its `why`)."""
    found: dict[str, int] = {}
    for number, names in shown:
        for name in names:
            if name not in leaving_out:
                found[name] = min(found.get(name, number), number)
    return list(found.items())
