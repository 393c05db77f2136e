"""Finding the one case or topic a caller named, however they spelled it.

`find_case` and `find_topic` are what every front door (pages, API, MCP tools and
resources) calls with the id or slug from a URL or a tool argument. Each answers one of:
the thing itself (the spelling was exact), its canonical spelling (the caller should be
redirected, or the tool may just use it), or the closest existing ones (for a 404 or an
error message that helps).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from django.db.models import BooleanField, Exists, OuterRef, Value

from ..models import Case, CaseQuerySet, Facet, Term
from ..rendering import as_sentence
from .cases import case_by_id, published_case_ids, resolve_case_id
from .facets import FACETS_BY_NAME
from .params import MAX_VALUE_CHARS, Problem, moved_note, unknown_term
from .spelling import (
    MAX_CASE_ID_CHARS,
    closest_case_ids,
    looks_like_case_id,
    nearest_terms,
    normalize_case_id,
    resolve_term,
)

MAX_CLOSEST = 3
# A case id as typed among the words of a search: `IL-0428`, `il-0428`, `IL0428`, `il_428`,
# perhaps followed by a comma or a full stop. The `IL` is what tells an id from a number
# (`exitcode -9`, `Xid 79`, `2.18.1` stay words).
_CASE_ID_TOKEN = re.compile(r"^(IL[-_]?\d{1,6})[.,;:]?$", re.IGNORECASE)


@dataclass(frozen=True)
class CaseLookup:
    """The answer of `find_case`: at most one of `case` / `canonical_id` / `closest` is
    informative. `canonical_id` is set whenever the id was spelt otherwise than stored
    (`il428` -> `IL-0428`): pages and the API redirect to it."""

    case: Case | None = None
    canonical_id: str | None = None
    closest: list[str] = field(default_factory=list)
    # The id asked for, when it was merged into `canonical_id` (the kept case).
    merged_from: str | None = None

    @property
    def found(self) -> bool:
        return self.case is not None or self.canonical_id is not None


def canonical_case_id(case_id: str) -> str | None:
    """The stored id matching `case_id` case-insensitively (`il-0428` -> `IL-0428`), the kept
    case's id when `case_id` was merged into another, or None. One query."""
    return resolve_case_id(case_id)


def find_case(raw_id: str, *, follow: bool = False) -> CaseLookup:
    """The published or retracted case `raw_id` names, for any of `IL-0428`, `il-0428`,
    `IL0428`, `il428`, `0428` or `428`.

    - exact id: `case` (prefetched for its document, as `case_by_id`);
    - another spelling of an existing id, or an id merged into another case: `canonical_id`
      (the kept case's id, with `merged_from` set), and `case` too when `follow` (tools that
      answer with the case rather than redirect);
    - no such case: `closest`, up to 3 published ids, likely typos first (one wrong, missing
      or extra digit: `IL-9428` -> `IL-0428`, `IL-04290` -> `IL-0429`; swapped digits;
      numeric neighbours), nearest to what was typed first (`spelling.closest_case_ids`);
      none for text that is not id-like (no digit: `nccl-timeout`, `nope`). Never a
      retracted id (`IL-9999` suggested the retracted IL-0637, a new user's walkthrough):
      a suggestion is a case to read.

    Text longer than `MAX_CASE_ID_CHARS` is no id: nothing, without a query (the rule every
    door shares; MCP refuses such an `id` by its schema).

    Queries: exact hit 7 (the case and its prefetches); redirect 1 (+7 with `follow`,
    +1 for a spelling `case_by_id` misses); miss 3 (case, case-insensitive id, every
    published id; 2 when the text has no digit); overlong 0.
    """
    if len(raw_id) > MAX_CASE_ID_CHARS:
        return CaseLookup()
    wanted = normalize_case_id(raw_id)
    if wanted == raw_id or follow:
        case = case_by_id(wanted)
        if case is not None:
            return CaseLookup(case=case, canonical_id=None if case.id == raw_id else case.id)
    canonical = canonical_case_id(wanted)
    if canonical is not None:
        case = case_by_id(canonical) if follow else None
        merged = wanted if canonical.lower() != wanted.lower() else None
        return CaseLookup(
            case=case, canonical_id=None if canonical == raw_id else canonical, merged_from=merged
        )
    if not looks_like_case_id(raw_id):  # no id is near it: spare reading them all
        return CaseLookup()
    return CaseLookup(closest=closest_case_ids(raw_id, published_case_ids(), limit=MAX_CLOSEST))


def find_published_case(raw_id: str) -> CaseLookup:
    """The published case `raw_id` names, for every spelling `find_case` reads (`IL-0428`,
    `il0428`, `428`) and an id merged into another case (the kept case): `case`, a row
    without prefetches, with `canonical_id` its id. Else `closest`: up to 3 published ids,
    as `find_case` orders them (`spelling.closest_case_ids`; none for text that is not
    id-like). For a form or body naming the case to act on (a correction). Queries: 2 (the
    id, then the row or the published ids); none for text over `MAX_CASE_ID_CHARS`.
    """
    if len(raw_id) > MAX_CASE_ID_CHARS:
        return CaseLookup()
    canonical = canonical_case_id(normalize_case_id(raw_id))
    if canonical is not None:
        case = Case.objects.published().filter(id=canonical).first()
        if case is not None:
            return CaseLookup(case=case, canonical_id=case.id)
    return CaseLookup(closest=closest_case_ids(raw_id, published_case_ids(), limit=MAX_CLOSEST))


class KeptCaseProblem(ValueError):
    """Why `case_to_keep` found no case to merge into, in words every door shows as they are."""

    def __init__(self, message: str, *, unknown: bool) -> None:
        super().__init__(message)
        self.unknown = unknown  # no such case at all (a 404), rather than one that cannot be kept


def case_to_keep(raw_id: str) -> str:
    """The stored id of the case a merge keeps, read from `raw_id` in any spelling the API's
    case URLs take (`IL-0431`, `il-0431`, `IL0431`, `431`), as the admin's merge form and
    `POST /api/cases/{id}/merge`'s `into` both read it: the admin refused `il-0431` ("no case
    'il-0431'", a new user's walkthrough). A case of any status is returned as stored (the
    merge says why a draft or retracted case cannot be kept).

    Raises `KeptCaseProblem`: an id merged into another case names the case to merge into
    instead; an unknown id names the closest published ids. Queries: 1 found, 2-3 not."""
    stripped = raw_id.strip()
    if not stripped or len(stripped) > MAX_CASE_ID_CHARS:
        raise KeptCaseProblem(f"no case {stripped!r}: ids look like IL-0428", unknown=True)
    wanted = normalize_case_id(stripped)
    row = Case.objects.filter(id__iexact=wanted).values_list("id", "status", "merged_into_id").first()
    if row is not None:
        case_id, status, merged_into = row
        if status == Case.Status.MERGED and merged_into:
            raise KeptCaseProblem(
                f"{case_id} was merged into {merged_into}: merge into {merged_into}", unknown=False
            )
        return case_id
    closest = closest_case_ids(stripped, published_case_ids(), limit=MAX_CLOSEST)
    hint = f"; the closest ids: {', '.join(closest)}" if closest else ""
    raise KeptCaseProblem(f"no case {stripped!r}{hint}", unknown=True)


@dataclass(frozen=True)
class TermLookup:
    """The answer of `find_facet_term` (of `find_topic` for a topic: `TopicLookup`): the
    term of `facet` (with `canonical_slug` set when it was named otherwise than by its
    slug), or else the `closest` of the facet's `terms`."""

    facet: str
    term: Term | None = None
    canonical_slug: str | None = None
    closest: list[Term] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)

    def problem(self, raw: str) -> Problem:
        """What every door says of `raw` naming no term of the facet, the facet filter's
        problem (`unknown symptom 'trainig-hang'`, the closest terms, or all when none is
        close and they are few), `parameter` the `slug` of the URL or tool that named it:
        the API's 404 and the pages' (`/vocab/symptom/trainig-hang`, `/topics/interconect`,
        their feeds) say `message()`, `No symptom called “trainig-hang”. Did you mean
        Training hang?`; MCP `get_topic` and `topic://` the tool error of a filter."""
        return unknown_term(FACETS_BY_NAME[self.facet], "slug", raw, self.closest, self.terms)


def find_facet_term(facet: str, raw: str) -> TermLookup:
    """The term of `facet` named by its slug, name or synonym in any letter case
    (`NCCL-timeout`, `NCCL timeout` -> nccl-timeout), or else the closest terms of the
    facet. One query. For a page or feed whose slug names no term (`find_topic` for a
    topic, which also knows the former topics)."""
    terms = list(Term.objects.of(facet).order_by("slug"))
    term = resolve_term(raw, terms)
    if term is not None:
        canonical = None if term.slug == raw else term.slug
        return TermLookup(facet, term=term, canonical_slug=canonical, terms=terms)
    return TermLookup(facet, closest=nearest_terms(raw, terms), terms=terms)


@dataclass(frozen=True)
class TopicLookup(TermLookup):
    """The answer of `find_topic`: a `TermLookup` of the topics (`closest`: all topics when
    none is close) that also knows a former topic, now the `workload` of that name."""

    facet: str = Facet.TOPIC
    workload: Term | None = None  # `training` and `inference` were topics; now workloads

    @property
    def topics(self) -> list[Term]:
        return self.terms

    def moved(self, raw: str) -> str:
        """What every door says of `raw` naming a former topic, now the `workload` (`training`,
        `inference`), before saying where its cases are: `'training' is a workload now, not a
        topic` (MCP get_topic and topic:// say it so too; a search or list filtering on it,
        `params.moved_note`, too)."""
        return moved_note(raw, "topic", "workload")


def find_topic(raw: str) -> TopicLookup:
    """The topic named by its slug, name or synonym in any letter case (`interconnect`,
    `Interconnect`, `networking` -> interconnect), or the workload of that name (`training`,
    `inference`: topics until the kinds re-cut, so old links still lead somewhere), or else
    the closest topics. One query (topics and workloads)."""
    terms = list(Term.objects.filter(facet__in=[Facet.TOPIC, Facet.WORKLOAD]).order_by("slug"))
    topics = [t for t in terms if t.facet == Facet.TOPIC]
    term = resolve_term(raw, topics)
    if term is not None:
        return TopicLookup(term=term, canonical_slug=None if term.slug == raw else term.slug, terms=topics)
    workload = resolve_term(raw, [t for t in terms if t.facet == Facet.WORKLOAD])
    if workload is not None:
        return TopicLookup(workload=workload, terms=topics)
    return TopicLookup(closest=nearest_terms(raw, topics), terms=topics)


def closest_terms(text: str, *, limit: int = 5) -> list[Term]:
    """Terms of any facet whose slug, name or synonym resemble `text`, best first: for a
    page that found nothing under that name. One query; none for text longer than a filter
    value may be (`MAX_VALUE_CHARS`, the parser's rule): it names no term."""
    if len(text) > MAX_VALUE_CHARS:
        return []
    terms = list(Term.objects.only("facet", "slug", "name", "synonyms"))
    exact = resolve_term(text, terms)
    near = nearest_terms(text, terms, limit=limit)
    return ([exact] + [t for t in near if t != exact])[:limit] if exact else near


def facets_naming(text: str) -> list[str]:
    """The facets (in `Facet` order) with a term `text` names by its slug, name or synonym in
    any letter case (`training-hang`: topic and symptom). One query; none for text longer
    than a filter value may be (`MAX_VALUE_CHARS`)."""
    if not text.strip() or len(text) > MAX_VALUE_CHARS:
        return []
    terms = Term.objects.only("facet", "slug", "name", "synonyms")
    named = {term.facet for term in terms if resolve_term(text, [term]) is not None}
    return [facet for facet in Facet.values if facet in named]


def split_case_ids(query: str) -> tuple[list[str], str]:
    """(the case ids a search query names, normalised and each once, the rest of the query):
    `il-0428 nccl` -> (["IL-0428"], "nccl"). Only whitespace-separated tokens that are an id
    (`_CASE_ID_TOKEN`) count, outside double-quoted phrases (`"nccl IL-0428 timeout"` is a
    phrase to match as written); no query runs."""
    ids: list[str] = []
    rest: list[str] = []
    quoted = False
    for token in query.split():
        if quoted or '"' in token:
            rest.append(token)
            quoted = quoted != (token.count('"') % 2 == 1)
            continue
        match = _CASE_ID_TOKEN.match(token)
        if match is None:
            rest.append(token)
        elif (case_id := normalize_case_id(match[1])) not in ids:
            ids.append(case_id)
    return ids, " ".join(rest)


KeptState = Literal["found", "filtered_out", "retracted", "hidden"]


@dataclass(frozen=True)
class MergedId:
    """A merged-away id a search named, and what became of the case it was merged into."""

    case_id: str  # the id named, merged away
    kept_id: str  # the case it was merged into (`Case.merged_into`, never itself merged)
    # found: published and allowed, listed in its place; filtered_out: published, left out by
    # the filters; retracted: retracted since (with `reason`); hidden: any other status.
    kept: KeptState
    reason: str = ""  # the kept case's retraction reason, when retracted


@dataclass(frozen=True)
class NamedCases:
    """What `cases_named` found of the ids a search named."""

    found: tuple[str, ...] = ()  # published and among the allowed cases, in the order named
    filtered_out: tuple[str, ...] = ()  # published, but the filters (or references) leave them out
    retracted: tuple[tuple[str, str], ...] = ()  # (id, reason) of the retracted cases named
    # Named ids no published or retracted case has, each with the closest published ids.
    unknown: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Named ids merged into another case: the kept case stands for them (it is in `found`
    # when published and allowed, unless named itself too).
    merged: tuple[MergedId, ...] = ()
    # The ids named that are no merged-away id (`found` may hold a kept case only through one).
    named_directly: tuple[str, ...] = ()

    def notes(self, *, left_out_by: str = "the filters") -> list[str]:
        """What a reader is told: the cases found, those `left_out_by` leaves out, the
        retracted ones with their reason (`retracted_note`), the merged-away ones with the
        case they were merged into (`merged_note`), the unknown ids with the closest ones
        (as an unknown id in a URL is answered)."""
        notes = []
        via_merge = {m.kept_id for m in self.merged}
        named = tuple(i for i in self.found if i not in via_merge or i in self.named_directly)
        if named:
            matches = "a strong match" if len(named) == 1 else "strong matches"
            notes.append(f"The query names {_cases(named)} by id: {matches}, whatever the words.")
        if self.filtered_out:
            them = "it" if len(self.filtered_out) == 1 else "them"
            notes.append(
                f"The query names {_cases(self.filtered_out)} by id, but {left_out_by} leave {them} out."
            )
        notes.extend(retracted_note(case_id, reason) for case_id, reason in self.retracted)
        notes.extend(merged_note(merged, left_out_by=left_out_by) for merged in self.merged)
        for case_id, closest in self.unknown:
            hint = f"; the closest ids: {', '.join(closest)}" if closest else ""
            notes.append(f"No published case has the id {case_id}{hint}.")
        return notes


def retracted_note(case_id: str, reason: str) -> str:
    """What search says of a retracted case it was asked for by id, in the words of the case's
    page ("This case was retracted." and its reason) and `get_incident`'s notice: `Case
    IL-0480 was retracted: <reason> It is left out of search; it still resolves by id (its
    page, GET /api/cases/IL-0480, get_incident).`"""
    reason = as_sentence(reason)
    said = f": {reason}" if reason else "."
    return (
        f"Case {case_id} was retracted{said} It is left out of search; it still resolves by id "
        f"(its page, GET /api/cases/{case_id}, get_incident)."
    )


# Retracted cases a note names when they are all a query matches; the others are counted.
RETRACTED_NAMED = 3


def retracted_matches_note(
    matched: list[tuple[str, str]] | tuple[tuple[str, str], ...],
    *,
    filtered: bool = False,
    named: frozenset[str] | set[str] = frozenset(),
) -> str:
    """What every door says when the only cases matching a query are retracted ones, `matched`
    as (id, reason), best first: `The only case matching this query is retracted: IL-0480
    (<reason>). It is left out of search; it still resolves by id (its page,
    GET /api/cases/IL-0480, get_incident).` Up to `RETRACTED_NAMED` are named, the others
    counted ("and 2 more"), as `retracted_note` words a retracted id named. `filtered`: the
    query had filters ("matching this query with these filters"). `named`: ids an earlier
    note of the same answer gave with their reason (`retracted_holding_note`): when every
    case matched is one, the note names them only ("IL-0637, named above"), so a reason and
    where the case resolves are said once per answer."""
    query = "this query with these filters" if filtered else "this query"
    if matched and all(case_id in named for case_id, _ in matched):
        ids = ", ".join(case_id for case_id, _ in matched)
        cases = "case matching {} is" if len(matched) == 1 else "cases matching {} are"
        return f"The only {cases.format(query)} retracted: {ids}, named above."
    listed = _retracted_list(matched)
    if len(matched) == 1:
        case_id = matched[0][0]
        return (
            f"The only case matching {query} is retracted: {listed}. It is left out of search; it "
            f"still resolves by id (its page, GET /api/cases/{case_id}, get_incident)."
        )
    return (
        f"The only cases matching {query} are retracted: {listed}. They are left out of search; "
        "each still resolves by id (its page, GET /api/cases/<id>, get_incident)."
    )


def retracted_holding_note(
    words: list[str] | tuple[str, ...], holding: list[tuple[str, str]] | tuple[tuple[str, str], ...]
) -> str:
    """What every door says of words of the query no published case contains, searched
    without, that the same retracted cases contain (`holding`, as (id, reason)), as
    `retracted_matches_note` names them: `Only a retracted case contains “SkyPilot”,
    “exec”: IL-0637 (<reason>). Searched without them; the case still resolves by id (its
    page, GET /api/cases/IL-0637, get_incident).` One note for all the words the same cases
    hold: a note each repeated the reason (a new user's walkthrough).
    (`planning.in_no_case_note` says "No case contains" of a word no case holds.)"""
    listed = _retracted_list(holding)
    quoted = ", ".join(f"“{word}”" for word in words)
    them = "it" if len(words) == 1 else "them"
    if len(holding) == 1:
        return (
            f"Only a retracted case contains {quoted}: {listed}. Searched without {them}; the case still "
            f"resolves by id (its page, GET /api/cases/{holding[0][0]}, get_incident)."
        )
    return (
        f"Only retracted cases contain {quoted}: {listed}. Searched without {them}; each still resolves "
        "by id (its page, GET /api/cases/<id>, get_incident)."
    )


def _retracted_list(matched: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> str:
    """`IL-0480 (<reason>); IL-0481 (no reason given); and 2 more`: up to `RETRACTED_NAMED`
    retracted cases named with their reasons, the others counted."""
    shown = [
        f"{case_id} ({_reason(reason) or 'no reason given'})" for case_id, reason in matched[:RETRACTED_NAMED]
    ]
    more = len(matched) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more else "")


def _reason(reason: str) -> str:
    """A retraction reason on one line, without a closing full stop (a note goes on after it)."""
    return " ".join(reason.split()).rstrip(".")


def merged_note(merged: MergedId, *, left_out_by: str = "the filters") -> str:
    """What search says of an id it was asked for that was merged into another case, as its
    page and the API redirect it: `Case IL-0431 was merged into IL-0428, listed in its place
    (its page, GET /api/cases/IL-0428, get_incident).`; when `left_out_by` (the filters)
    leaves the kept case out, or it was retracted since (`retracted_note` of it), that too."""
    said = f"Case {merged.case_id} was merged into {merged.kept_id}"
    if merged.kept == "found":
        return f"{said}, listed in its place (its page, GET /api/cases/{merged.kept_id}, get_incident)."
    if merged.kept == "filtered_out":
        return f"{said}, but {left_out_by} leave it out."
    if merged.kept == "retracted":
        return f"{said}. {retracted_note(merged.kept_id, merged.reason)}"
    return f"{said}."


def _cases(ids: tuple[str, ...]) -> str:
    return f"case {ids[0]}" if len(ids) == 1 else f"cases {', '.join(ids)}"


def cases_named(case_ids: list[str], allowed: CaseQuerySet, *, every: bool = False) -> NamedCases:
    """Which of `case_ids` (normalised, as `split_case_ids` gives them) are published cases
    among `allowed` (a lazy queryset of published cases; `every`: it is every one of them).

    Published cases only: a draft or a case in review is unknown to search; a retracted one
    is named as such, with its reason (search leaves it out, as every list does); an id
    merged into another case stands for the kept case (`Case.merged_into`), found in its
    place when that is published and allowed (`MergedId`). Queries: 1; 1 more when an id is
    no published, retracted or merged case's (every published id, for the closest ones:
    `spelling.closest_case_ids`).
    """
    S = Case.Status
    named = Case.objects.filter(id__in=case_ids, status__in=[*Case.PUBLIC_STATUSES, S.MERGED])
    true = Value(True, output_field=BooleanField())
    allowed_too = true if every else Exists(allowed.filter(pk=OuterRef("pk")))
    kept_allowed = true if every else Exists(allowed.filter(pk=OuterRef("merged_into_id")))
    rows = {
        row[0]: row[1:]
        for row in named.values_list(
            "id",
            "status",
            "retraction_reason",
            allowed_too,
            "merged_into_id",
            "merged_into__status",
            "merged_into__retraction_reason",
            kept_allowed,
        )
    }
    # What each id named stands for: itself, or the case it was merged into.
    standing: dict[str, tuple[str, str, str, bool]] = {}  # named id -> (id, status, reason, allowed)
    merged: list[MergedId] = []
    for case_id in case_ids:
        if case_id not in rows:
            continue
        status, reason, is_allowed, kept_id, kept_status, kept_reason, is_kept_allowed = rows[case_id]
        if status != S.MERGED:
            standing[case_id] = (case_id, status, reason or "", is_allowed)
            continue
        standing[case_id] = (kept_id, kept_status, kept_reason or "", is_kept_allowed)
        kept = _kept_state(kept_status, is_kept_allowed)
        merged.append(MergedId(case_id, kept_id, kept, (kept_reason or "") if kept == "retracted" else ""))
    published = [(i, ok) for i, status, _, ok in standing.values() if status == S.PUBLISHED]
    direct = [i for i in case_ids if i in standing and standing[i][0] == i]
    missing = [case_id for case_id in case_ids if case_id not in rows]
    unknown: list[tuple[str, tuple[str, ...]]] = []
    if missing:
        ids = list(Case.objects.published().order_by("id").values_list("id", flat=True))
        unknown = [(i, tuple(closest_case_ids(i, ids, limit=MAX_CLOSEST))) for i in missing]
    return NamedCases(
        found=tuple(dict.fromkeys(i for i, ok in published if ok)),
        filtered_out=tuple(i for i in direct if (i, False) in published),
        retracted=tuple((i, standing[i][2]) for i in direct if standing[i][1] == S.RETRACTED),
        unknown=tuple(unknown),
        merged=tuple(merged),
        named_directly=tuple(direct),
    )


def _kept_state(status: str, allowed: bool) -> KeptState:
    """What became of a case an id was merged into, as `MergedId.kept` says it."""
    if status == Case.Status.PUBLISHED:
        return "found" if allowed else "filtered_out"
    return "retracted" if status == Case.Status.RETRACTED else "hidden"
