"""Result shapes of the search module (shared by HTML, API and MCP)."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal

from incidents.models import Case, Term

from .text import stem, words
from .why_words import matched_words, typed_words_held

# The engine's confidence label of a hit (see fusion.label and logmatch.confidence).
Confidence = Literal["strong", "possible", "weak"]
# Surest first: a label's place in this order (`CONFIDENCE_RANK`) sorts and compares labels.
CONFIDENCE_ORDER: tuple[Confidence, ...] = ("strong", "possible", "weak")
CONFIDENCE_RANK: dict[Confidence, int] = {label: rank for rank, label in enumerate(CONFIDENCE_ORDER)}


@dataclass(frozen=True)
class FacetCount:
    value: str  # slug for term facets, the name or year otherwise
    label: str  # what a person reads
    count: int  # cases in the current result set with this value


# Inline Markdown a snippet segment was written in: `code`, **strong**, *em*.
SnippetStyle = Literal["code", "strong", "em"]


@dataclass(frozen=True)
class SnippetSegment:
    text: str  # plain text, never escaped: each front door escapes it for its own format
    matched: bool = False  # a word (or phrase) the query matched
    styles: tuple[SnippetStyle, ...] = ()  # the inline Markdown it is inside, outermost first


@dataclass(frozen=True)
class Snippet:
    """A passage of a case around the query's matches, as plain-text segments in order.

    Built by `snippets.parse_snippet` from the backend's marked text; rendered by each
    front door (`incidents.rendering.snippet_html` for the pages and the API,
    `mcp_server.shaping.snippet_text` for MCP). Segments are split wherever a match or a
    style starts or ends, so neighbours may share styles (a run of them is one code span)
    and two matched segments may touch (two marks side by side)."""

    segments: tuple[SnippetSegment, ...]


# Why a hit found by the semantic part alone is listed: no word of the query is in the case,
# so neither its snippet nor its matched terms can say. Calibration labels such hits weak
# (a partial match): with the fitted weights (`fusion.WEIGHTS`) a case with no lexical match
# reaches at most p = 0.008, far below `fusion.POSSIBLE_P`.
MEANING_ONLY = "Similar in meaning; no query word in this case."
# Why a case named by its id in the query is listed (a strong match of score 1).
NAMED_BY_ID = "The query names this case by its id."
# Query words shown in a hit's `why`, at most (the snippet marks them all).
WHY_WORDS = 5


def like_sentence(like: str) -> str:
    """The last sentence of the `why` of a hit listed as the case most like the first hit
    (`like`, that hit's id): `Similar to IL-0449, the first hit.` The search and match pages
    link the id in it (`incident_tags.why_linked`)."""
    return f"Similar to {like}, the first hit."


def tagged_sentence(matched_terms: Sequence[str]) -> str:
    """`why_listed`'s sentence naming the query's vocabulary terms a case carries, which a
    search card leaves out beside its own "Tagged:" line (`SearchHit.why_beside_tags`)."""
    return f"Tagged: {', '.join(matched_terms)}."


# The `Matches: a, b.` sentence of a `why` (a word may hold a dot: `2.18.1`).
_MATCHES = re.compile(r"Matches: (.+?)\.(?=\s|$)\s*")


def _untagged(listed: str, tagged: set[str]) -> str:
    """`Matches: <listed>.` without the items (a word, or words such as `Training hangs`)
    whose every word's stem is one of `tagged`, "" when none is left, followed by a space as
    the sentence was."""
    kept = [item for item in listed.split(", ") if not _said_by(item, tagged)]
    return f"Matches: {', '.join(kept)}. " if kept else ""


def _said_by(item: str, tagged: set[str]) -> bool:
    stems = {stem(word) for word in words(item)}
    return bool(stems) and stems <= tagged


def why_listed(
    snippet: Snippet | None,
    matched_terms: Sequence[str],
    *,
    share: float = 0.0,
    references: Sequence[str] = (),
    like: str | None = None,
    numbers: Collection[str] = (),
    title: Snippet | None = None,
    typed: Sequence[Sequence[tuple[str, ...]]] = (),
    body: str | None = None,
) -> str:
    """Why a case is listed for a query, in a short sentence or two every door shows as they
    are (the pages, `GET /api/cases/` and MCP `search_incidents`): the records the query
    names that it cites (`Cites NVIDIA/nccl#1116.`), then the meaningful words its snippet
    marks as matching the query (`Matches: watchdog timeouts, hang.`: as written in the
    case, so stemmed forms and synonyms too; `why_words.matched_words`: no stop word,
    function word or bare number unless `numbers`, the query's `identifier_numbers`, holds
    it) and after them those its `title` (the title with the query's words marked) holds
    that the snippet lacks (`Matches: nodes, swap.`: the title's `compare-and-swap` ranked
    IL-0497 first, while its passage showed only `nodes`), then the query's word groups as
    typed (`typed`: each group's spellings) that the case's `body` holds and those words do
    not say (`why_words.typed_words_held`: `Matches: NCCL, watchdog, timeout.` where the
    passage marks only `NCCL`), up to `WHY_WORDS` in all, or,
    when none of those is marked, the query's vocabulary terms it
    carries (`Tagged: NCCL timeout.`; beside marked words they are left to `matched_terms`,
    which every door shows: said twice they cost an MCP answer 1.5 KB at 25 hits). When
    none of those can say (its words are outside the snippet, or it marks only words that
    say nothing: `Matches: on, one.` was shown), whether it has every word of
    the query, from `share` (the ranking's share of the query's word groups it matches).
    A partial match listed as the case most like the first hit (`like`, that hit's id) says
    so (`Similar to IL-0449, the first hit.`), as a log hit does."""
    parts: list[str] = []
    if references:
        parts.append(f"Cites {', '.join(references)}.")
    words = matched_words(snippet, numbers)
    seen = {word.lower() for word in words}
    words += [word for word in matched_words(title, numbers) if word.lower() not in seen]
    words += typed_words_held(typed, body, words, numbers)
    if words:
        parts.append(f"Matches: {', '.join(words[:WHY_WORDS])}.")
    elif matched_terms:
        parts.append(tagged_sentence(matched_terms))
    if not parts and (share > 0.0 or not like):
        parts.append("Has every word of the query." if share >= 1.0 else "Has some of the query's words.")
    if like:
        parts.append(like_sentence(like))
    return " ".join(parts)


def why_log_listed(
    evidence: Sequence[tuple[str, int]],
    *,
    context: Sequence[str] = (),
    words: Sequence[str] = (),
    versions: Sequence[str] = (),
    like: str | None = None,
) -> str:
    """Why a case is listed for a pasted log, in a sentence or a few every door shows as
    they are (the /match/ page, `POST /api/match` and MCP `match_log`), as `why_listed` says
    it of a search hit: the signatures it shares with the log by the first line showing them
    (`Shares: NET/IB completion error, error 12 (line 10); IBV_WC_RETRY_EXC_ERR (line 12).`,
    at most `WHY_WORDS` names; `evidence`: (name, line number), in the order the hit lists
    its lines), the component versions the log prints inside its affected ranges
    (`Affected version: NCCL 2.18.1.`), the log's rare words it holds (`Rare words:
    decoupled, turbomind.`), the
    components it names beside them (`Context: NCCL, InfiniBand.`: alone they are why a
    case is listed but never a signature) and, for a case listed higher as one like the
    first hit (`like`, that hit's id), that it is (`Similar to IL-0450, the first hit.`)."""
    parts: list[str] = []
    if evidence:
        by_line: dict[int, list[str]] = {}
        for name, number in evidence[:WHY_WORDS]:
            by_line.setdefault(number, []).append(name)
        listed = "; ".join(f"{', '.join(names)} (line {number})" for number, names in by_line.items())
        more = len(evidence) - WHY_WORDS
        parts.append(f"Shares: {listed}{f'; {more} more' if more > 0 else ''}.")
    if versions:
        parts.append(f"Affected version{'s' if len(versions) > 1 else ''}: {', '.join(versions)}.")
    if words:
        parts.append(f"Rare words: {', '.join(words[:WHY_WORDS])}.")
    if context:
        parts.append(f"Context: {', '.join(context)}.")
    if like:
        parts.append(like_sentence(like))
    return " ".join(parts) or "Shares words with the log."


@dataclass(frozen=True)
class SearchHit:
    case: Case  # prefetched with `with_summary()`
    score: float | None  # None when browsing without a query
    snippet: Snippet | None  # the passage around the matches, or None (browsing, no text)
    matched_terms: tuple[str, ...] = ()  # vocabulary terms the query named or widened to
    # The same terms as (facet label as the filters name it, in lower case; name), every
    # one: two facets may name a term alike (the topic "Training hangs" and the symptom tag
    # "Training hang"; "Silent data corruption" in both), and a name alone does not say
    # which one the case carries.
    matched_vocabulary: tuple[tuple[str, str], ...] = ()
    # strong / possible (a match) or weak (a partial match); None when browsing.
    confidence: Confidence | None = None
    # Why it is listed, in words (`why_listed`; `MEANING_ONLY`, `NAMED_BY_ID`); None when
    # browsing, where nothing was asked.
    why: str | None = None
    # The first hit's id when this partial match is listed first among them as the case most
    # like it (`nearest_to_first`; `why` ends "Similar to IL-0449, the first hit."), else None.
    # Its place comes from that likeness, not from `score`, which stays its own probability
    # of answering the query (0 when only the likeness brought it: neither the query's words
    # nor its meaning made it a candidate).
    like: str | None = None

    @property
    def is_partial(self) -> bool:
        return self.confidence == "weak"

    @property
    def why_beside_tags(self) -> str | None:
        """`why` as a search result card shows it under its own "Tagged:" line (the
        `matched_vocabulary`, each term's facet named): without the `Tagged: ...` sentence
        `why_listed` ends with when no word is marked, which would name the same terms again
        in a line starting alike, and without the `Matches:` words that are a tagged term's
        words (`hanging` under "Tagged: Training hang (symptom)": the same word said twice,
        a new user's walkthrough); None when nothing else is said."""
        if not (self.why and self.matched_vocabulary):
            return self.why
        why = self.why.removesuffix(tagged_sentence(self.matched_terms)).strip()
        tagged = {stem(word) for _, name in self.matched_vocabulary for word in words(name)}
        return _MATCHES.sub(lambda found: _untagged(found.group(1), tagged), why).strip() or None


@dataclass(frozen=True)
class SearchResults:
    hits: list[SearchHit]
    total: int  # cases matching query and filters (strong or possible); all when browsing
    facets: dict[str, list[FacetCount]]  # facet name -> counts over the matches
    notes: list[str] = field(default_factory=list)  # e.g. "the query had only stop words"
    terms: list[str] = field(default_factory=list)  # vocabulary terms the query named
    partial_hits: list[SearchHit] = field(default_factory=list)  # weak hits after the last page
    partial_total: int = 0  # all weak hits (only the first few are listed)
    suggestion: str | None = None  # "did you mean": the query with misspelt words corrected
    browsing: bool = False  # a blank query: every case, newest first, not a match list
    # Nothing matched, but these retracted cases would have (ids, best first): a note names
    # them with their reasons (`selectors.lookup.retracted_matches_note`).
    retracted_matches: tuple[str, ...] = ()
    # Those of `notes` that say nothing matched (and why): the search page says it in its own
    # words, with links, where the API and MCP give these notes as they are.
    empty_result_notes: tuple[str, ...] = ()
    # Those of `notes` that say how the query was read and what it named (a case id merged
    # away or retracted, words no case or only a retracted case contains, a correction, a
    # capped ranking) and which retracted cases alone would have matched: all but those
    # saying that nothing, or only partial matches, matched. What triage passes on.
    reading_notes: tuple[str, ...] = ()
    # The upstream records the query named that no case cites (`citing_notes.uncited_note`
    # says so, with the way on, in `notes`): no other words would list a case citing them.
    uncited: tuple[str, ...] = ()


@dataclass(frozen=True)
class LogLine:
    """One log line once, with everything in it that a hit's case shares."""

    line_number: int  # 1-based (the first occurrence of a repeated line)
    line: str  # at most 300 characters (ending in … when cut)
    terms: tuple[str, ...]  # vocabulary terms and tokens it matched, strongest first
    spans: tuple[tuple[int, int], ...]  # [start, end) offsets of the matches in `line`
    # How many lines of the log it stands for: itself, its exact repeats and the lines
    # repeating it but for their digits with the same terms (`hit_lines.fold_repeats`).
    occurrences: int = 1


@dataclass(frozen=True)
class LogHit:
    case: Case
    score: float
    matched_terms: tuple[str, ...] = ()  # vocabulary terms and tokens shared with the case
    # each distinct matched line once, at its first number: the lines with a signature first,
    # then those sharing only a component's name, each in line order
    lines: list[LogLine] = field(default_factory=list)
    confidence: Confidence = "weak"  # strong / possible / weak (see logmatch.confidence)
    why: str = ""  # why it is listed, in words (`why_log_listed`)
    # The first hit's id when it is listed higher as a case like it (`log_scores.like_the_first`:
    # its score raised by how alike the two are; `why` ends "Similar to IL-0450, the first hit.").
    like: str | None = None
    # It shares a signature with the log (a failure token, a code name, a symptom, root cause,
    # error code or a component found by its own patterns), not only context or rare words.
    signature: bool = False


@dataclass(frozen=True)
class FoundCode:
    """An error code whose RE2 patterns match lines of a pasted log: the term (with
    `case_count`, the published cases carrying it) and the 1-based numbers of the first
    distinct lines it was found on (at most 20, in order; a line the log repeats word for
    word at its first number)."""

    term: Term
    line_numbers: tuple[int, ...]


@dataclass(frozen=True)
class LogReading:
    """What `logmatch.read_log` made of a pasted log."""

    hits: list[LogHit]
    lines_read: int  # lines in the text (after the 1 MB cut)
    lines_blank: int
    lines_repeated: int  # lines that repeat an earlier one (read once)
    # distinct lines in which a failure token or a term other than a component was found
    lines_with_signature: int
    # distinct non-blank lines with no signature that a hit lists all the same: it shares a
    # component's name (`NCCL`), a rare word or a version with them (context, never a hit alone)
    lines_context: int
    # distinct non-blank lines that neither carry a signature nor are listed by any hit;
    # read + the counts add up: with_signature + context + ignored + repeated + blank = read
    lines_ignored: int
    job_kind: str | None  # "training", "inference" or None when the log does not say
    generic_only: tuple[str, ...] = ()  # names found that are too common to be a signature
    # Error codes the log shows (by their patterns), in vocabulary order, with or without cases.
    error_codes: tuple[FoundCode, ...] = ()

    @property
    def hits_with_signature(self) -> int:
        """How many hits share a signature with the log (`LogHit.signature`), not only a
        component's name or rare words: a log whose lines carry signatures no case has gets
        hits by its words alone, which do not share "its signatures"."""
        return sum(1 for hit in self.hits if hit.signature)


@dataclass(frozen=True)
class SimilarCase:
    case: Case
    score: float  # 0..1
    shared_terms: dict[str, list[str]]  # facet -> names of shared terms
    score_parts: dict[str, float]  # e.g. {"vocabulary": 0.4, "text": 0.2}; sums to score
    shared_words: tuple[str, ...] = ()  # distinctive words both texts use, strongest first
    hand_linked: bool = False  # also in the case's hand-made `related` list
    label: str = ""  # "very similar", "similar" or "related": what a person reads
    reasons: tuple[str, ...] = ()  # why, in words ("Both: NCCL timeout, DeepSpeed", ...)
