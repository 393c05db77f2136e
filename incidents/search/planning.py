"""Search, stage 1 of 3: the plan (`plan`), what a request asks for, before any ranking.

The query is split into reference tokens (`NVIDIA/nccl#1116`, an arXiv id, a URL: the
cases citing them) and words, parsed (`query.py`: words, phrases, exclusions), corrected
where a word is in no case (`spelling.py`), without the words no case has and generic
exception names (`without_words`), and widened with the vocabulary's synonyms; the
filters become a lazy queryset of the published cases they allow. The plan says which of
four kinds of answer the request gets (`PlanKind`) and carries the notes a reader sees.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, cast

from incidents import store_cache
from incidents.codes import CodeTerm, CodeVocabulary
from incidents.models import Case, CaseQuerySet, Facet
from incidents.selectors import SORTS, CaseFilters, filter_cases
from incidents.selectors.lookup import cases_named, retracted_holding_note, split_case_ids
from incidents.selectors.references import citing_cases_condition, split_reference_tokens
from incidents.selectors.vocabulary import terms_with_case_counts

from .backends import get_backend
from .citing_notes import citing_note
from .code_notes import UncasedCode, uncased_code_notes, uncased_codes
from .exception_numbers import read_exception_numbers
from .patterns import GENERIC_EXCEPTION_NAMES
from .query import Atom, ParsedQuery, VocabTerm, build_lexicon, expand_with_vocabulary, parse_query
from .scale_words import read_scale_unquoted, scale_note
from .spelling import check_words, is_exception_name, known_words

Sort = Literal["relevance", "newest", "oldest"]  # the keys of `selectors.SORTS`
MAX_LIMIT = 100
# Past MAX_OFFSET every page is empty anyway; larger numbers overflow the databases' integers.
MAX_OFFSET = 1_000_000_000
# Facets whose terms widen queries and favour the cases tagged with them.
EXPAND_FACETS: tuple[str, ...] = (
    Facet.SYMPTOM,
    Facet.ROOT_CAUSE,
    Facet.COMPONENT,
    Facet.TOPIC,
    Facet.WORKLOAD,
)

# browse: a blank query, every allowed case by date; nothing: no word left to search for;
# exclusions: the query only excludes words, the other cases by date; ranked: a ranking.
PlanKind = Literal["browse", "nothing", "exclusions", "ranked"]


@dataclass(frozen=True)
class SearchRequest:
    """What a front door asks `search_cases` for (any values: the plan bounds them)."""

    query: str = ""
    filters: CaseFilters | None = None
    sort: str = "relevance"
    offset: int = 0
    limit: int = 20
    facets: bool = True  # False: callers that show no counts save the facet queries


@dataclass(frozen=True)
class SearchPlan:
    kind: PlanKind
    cases: CaseQuerySet  # the published cases the filters and reference tokens allow (lazy)
    whole: bool  # `cases` is every published case
    query: str  # the words to search: the query without its reference tokens, corrected
    # Words, phrases and exclusions, corrected and widened with synonyms (`terms`: the
    # vocabulary terms the query names); None when browsing.
    parsed: ParsedQuery | None
    sort: Sort
    offset: int  # 0..MAX_OFFSET
    limit: int  # 1..MAX_LIMIT
    facets: bool  # facet counts wanted
    suggestion: str | None = None  # the query with misspelt words corrected, when searched so
    notes: tuple[str, ...] = ()  # what the reader is told about the query, in order
    # Browsing with a few facet values only (`_few_facet_values`): the total and facet counts
    # may be shared through the store cache, as their key space is the vocabulary's.
    shared_counts: bool = False
    # The upstream records the query names (`NVIDIA/nccl#1116`): `cases` cite one of them.
    references: tuple[str, ...] = ()
    # The published cases the query names by id (`IL-0428`) that the filters allow: strong
    # matches of score 1, first in a ranking; with no words to rank, `cases` are these.
    case_ids: tuple[str, ...] = ()
    filtered: bool = False  # a filter narrows `cases` (the notes say "with these filters")
    # Published cases, as the vocabulary's counts read them (0 when no words are searched).
    library_size: int = 0
    # A query quoting what a program printed (it shows an error code by the code's patterns):
    # the failure tokens it shows (`logmatch.signature_tokens`), one of which a strong hit
    # holds (`signatures.holding_a_signature`); empty for other queries.
    signatures: tuple[str, ...] = ()
    # The names of the error codes such a query shows by their patterns
    # (`codes.CodeVocabulary.find`, negated mentions left out): the cases carrying one hold
    # the line's failure however it was spelt (`coordination.coordination`).
    codes: tuple[str, ...] = ()
    # The retracted cases the same filters and reference tokens allow (lazy): search leaves
    # them out, but says when they are all the query matches (`withdrawn.retracted_matches`).
    retracted: CaseQuerySet | None = None
    # Retracted cases a note already named with their reason (`in_no_case_notes`): the note
    # that only retracted cases match names them without it again.
    retracted_named: frozenset[str] = frozenset()
    # Exception names typed that no published case contains (`AsyncEngineDeadError`): the
    # failure a pasted line names is none the library tells, so no hit is strong (`ranking`).
    unseen_exceptions: tuple[str, ...] = ()


def vocabulary_terms(counted: list | None = None) -> list[VocabTerm]:
    """Every term of the facets in `EXPAND_FACETS`: name, synonyms and rarity (one query;
    none with `counted`, those terms as `terms_with_case_counts(EXPAND_FACETS)` read them).

    `weight` is how much naming the term favours the cases tagged with it:
    log(N / n) / log(N) for a term on n of N published cases, so 1 for a term on one case
    and 0 for a term on every case (`NVIDIA GPU` or the `Training` topic say little).
    """
    terms = counted if counted is not None else terms_with_case_counts(EXPAND_FACETS)
    total = max(_published(terms), 2)
    return [
        VocabTerm(
            id=t.id,
            facet=t.facet,
            name=t.name,
            forms=(t.name, *t.synonyms),
            weight=max(0.0, math.log(total / max(t.case_count, 1)) / math.log(total)),
            cases=t.case_count,
        )
        for t in terms
    ]


def _published(terms: list) -> int:
    """Published cases, from the root causes' case counts (each case has one)."""
    return sum(t.case_count for t in terms if t.facet == Facet.ROOT_CAUSE)


@dataclass(frozen=True)
class Vocabulary:
    """What planning reads of the vocabulary: `vocabulary_terms`, their lexicon
    (`query.build_lexicon`) and the words a misspelt word may become
    (`spelling.known_words`). Read-only: kept per process and shared by every request."""

    terms: list[VocabTerm]
    lexicon: dict[tuple[str, ...], list[VocabTerm]]
    known: list[str]
    library_size: int = 0  # published cases (every one has a root cause: their counts' sum)
    # The error codes with their patterns: whether a query quotes what a program printed.
    codes: CodeVocabulary = field(default_factory=lambda: CodeVocabulary(()))
    # The error codes no published case carries, by name: a query showing one is told what it
    # means and where its page is (`code_notes`).
    uncased: dict[str, UncasedCode] = field(default_factory=dict)


def vocabulary() -> Vocabulary:
    """The `Vocabulary` of the store, kept in this process per store generation
    (`store_cache.local`: one cache read, where reading the terms from the shared cache
    and building the lexicon and word list again took about 3 ms a search); one query
    (`vocabulary_terms`) with the store cache off."""
    return store_cache.local("search-vocabulary", _read_vocabulary)


def _read_vocabulary() -> Vocabulary:
    # The error codes in the same query: only their patterns are read (they widen no query).
    every = terms_with_case_counts([*EXPAND_FACETS, Facet.ERROR_CODE])
    counted = [t for t in every if t.facet != Facet.ERROR_CODE]
    terms = vocabulary_terms(counted)
    codes = CodeVocabulary.of(
        CodeTerm(t.name, t.slug, t.vendor or "", (t.slug, t.name, *t.synonyms), tuple(t.patterns))
        for t in every
        if t.facet == Facet.ERROR_CODE
    )
    return Vocabulary(
        terms=terms,
        lexicon=build_lexicon(terms),
        known=known_words(terms),
        library_size=_published(counted),
        codes=codes,
        uncased=uncased_codes(t for t in every if t.facet == Facet.ERROR_CODE),
    )


def interpret(query: str, terms: list[VocabTerm] | None = None) -> ParsedQuery:
    """Parse `query` and widen it with the vocabulary (one query unless `terms` is given)."""
    parsed = parse_query(query)
    if parsed.is_empty:
        return parsed
    return expand_with_vocabulary(parsed, build_lexicon(terms) if terms is not None else vocabulary().lexicon)


def semantic_text(query: str) -> str:
    """What the encoder reads of a query: its words and phrases, without exclusions or
    operators (stop words kept: they carry meaning for a sentence model; lone letters, which
    the lexical search leaves out, too, so `hang b` ranks as `hang`)."""
    return " ".join(
        atom.text() for group in parse_query(query).groups for atom in group if not atom.is_single_letter
    )


def plan(request: SearchRequest) -> SearchPlan:
    """The plan of `request`: one query for the vocabulary when there are words to search
    (one more when a word of four letters or more is no vocabulary word: whether any case
    has it, `spelling.check_words`), none when browsing. A query naming a case id
    (`IL-0428`, `il-0428 nccl`) costs one query more, whether those cases are published and
    allowed, or retracted (`selectors.cases_named`; one more again for an id no published or
    retracted case has, to name the closest ones); other queries, digits and all, none. Any
    string is accepted: nothing raises on odd input."""
    sort = cast(Sort, request.sort if request.sort in SORTS else "relevance")
    offset = min(max(0, int(request.offset)), MAX_OFFSET)
    limit = max(1, min(int(request.limit), MAX_LIMIT))
    cases = filter_cases(Case.objects.published(), request.filters)
    retracted = filter_cases(Case.objects.filter(status=Case.Status.RETRACTED), request.filters)
    unfiltered = _unfiltered(request.filters)
    query, whole = request.query or "", unfiltered
    # What the filters were read as (`topic=training` is the workload): first, at every door.
    notes: list[str] = list(request.filters.notes if request.filters else ())
    references, rest = split_reference_tokens(query)
    if references:
        # The cases citing that record (a subquery, no extra query), the rest of the query
        # ranked among them.
        cases = cases.filter(citing_cases_condition(references))
        retracted = retracted.filter(citing_cases_condition(references))
        notes.append(citing_note(references))
        query, whole = rest, False
    named_ids, rest = split_case_ids(query)
    found: tuple[str, ...] = ()
    if named_ids:
        # The words search the rest; the named cases join the answer as strong matches.
        named = cases_named(named_ids, cases, every=whole)
        notes.extend(
            named.notes(left_out_by="the filters or the record cited" if references else "the filters")
        )
        query, found = rest, named.found
    browse = SearchPlan(
        kind="browse",
        cases=cases,
        whole=whole,
        query=query,
        parsed=None,
        sort=sort,
        offset=offset,
        limit=limit,
        facets=request.facets,
        notes=tuple(notes),
        shared_counts=not references and _few_facet_values(request.filters),
        references=tuple(references),
        filtered=not unfiltered,
        case_ids=found,
        retracted=retracted,
    )
    # "nccl timeout on 512 gpus": the job's size, not a word a case of that failure holds.
    query, scale = read_scale_unquoted(query)
    if scale is not None:
        notes.append(scale_note(scale))
    if not query.strip():
        if found:
            return _only_named(browse)
        if named_ids and not references:
            return dataclasses.replace(browse, kind="nothing")
        return browse

    vocab = vocabulary()
    checked = check_words(query, parse_query(query), vocab.terms, get_backend(), vocab.known)
    parsed, suggestion = checked.parsed, checked.suggestion
    if suggestion:
        # Searched as if the corrected text had been typed: its parse, and its words for the
        # semantic side too (the embedding of "nccl timout" is not that of "nccl timeout",
        # and the note says the corrected text was searched).
        query, parsed = suggestion, parse_query(suggestion)
    # `OSError 28` is errno 28 (ENOSPC), read so before `OSError` is left out as generic.
    parsed, read_numbers = read_exception_numbers(parsed)
    notes.extend(read_numbers)
    parsed, generic = without_words(parsed, GENERIC_EXCEPTIONS, ignore_case=False)
    if generic:
        notes.append(generic_note(generic))
    lone = only_generic(parsed)
    if lone:
        # Alone, a generic exception name tells no case from another either: searched, it
        # made whichever case quotes it a strong match (`RuntimeError` -> IL-0465).
        notes.append(lone_generic_note(lone))
    unmatched: list[str] = []
    if not parsed.is_empty and not lone:
        parsed, unmatched = widened_without(parsed, checked.in_no_case, vocab.lexicon)
    retracted_named: frozenset[str] = frozenset()
    if unmatched:
        in_no_case, retracted_named = in_no_case_notes(unmatched)
        notes.extend(in_no_case)
    notes.extend(parsed.notes)
    if suggestion:
        notes.append(corrected_note(suggestion))
    shown = tuple(vocab.codes.find(query))
    notes.extend(uncased_code_notes(list(shown), vocab.uncased) if vocab.uncased else ())
    kind: PlanKind = "ranked"
    if lone:
        kind = "nothing"
    elif parsed.is_empty:
        kind = "nothing"
        if not found:
            notes.append(_empty_note(parsed))
    elif not parsed.groups:
        kind = "exclusions"
        if not found:
            notes.append("The query only excludes words: showing every case without them.")
    ranked = dataclasses.replace(
        browse,
        kind=kind,
        query=query,
        parsed=parsed,
        suggestion=suggestion,
        notes=tuple(notes),
        library_size=vocab.library_size,
        signatures=_signatures(query, shown),
        codes=shown,
        retracted_named=retracted_named,
        unseen_exceptions=tuple(w for w in checked.in_no_case if is_exception_name(w)),
    )
    if found and kind != "ranked":
        # No word to rank by: the named cases, as for an id alone (the words rank and exclude
        # the other cases; a case asked for by its id is listed whatever its words).
        return _only_named(dataclasses.replace(ranked, kind="browse"))
    return ranked


# Exception types every Python traceback prints, whatever failed (`patterns.GENERIC_TOKENS`,
# which log matching ignores for the same reason), spelt as printed: `RuntimeError` before a
# pasted `CUDA error: an illegal memory access ...` made an ECC case quoting another
# `RuntimeError: CUDA error` a strong match and the cases quoting the message partial ones.
GENERIC_EXCEPTIONS = GENERIC_EXCEPTION_NAMES


def without_words(
    parsed: ParsedQuery, words: Iterable[str], *, ignore_case: bool = True
) -> tuple[ParsedQuery, list[str]]:
    """`parsed` without its groups that are one of `words` alone, and those words as typed;
    unchanged when no group with a word of letters would be left (a query of such words
    and numbers is searched as it is), and the semantic side reads the query as typed
    whatever is left out.

    Used for the words typed that no published case contains (`spelling.check_words`): such
    a word tells no case from another, yet it counted in the share of the query's words each
    case matches, so no case could have them all and a pasted error line (`CUDA error: an
    illegal memory access was encountered`, where no case says `encountered`) matched nothing
    well: the cases quoting the message were partial matches, ordered by their likeness to a
    first hit of another failure (a new user's walkthrough). And for generic exception
    names (`GENERIC_EXCEPTIONS`)."""
    fold = str.lower if ignore_case else str
    unwanted = {fold(word) for word in words}
    kept = [
        group
        for group in parsed.groups
        if not (len(group) == 1 and not group[0].is_phrase and fold(group[0].words[0]) in unwanted)
    ]
    if not unwanted or not any(map(_has_letters, kept)) or len(kept) == len(parsed.groups):
        return parsed, []
    dropped = [group[0].words[0] for group in parsed.groups if group not in kept]
    return dataclasses.replace(parsed, groups=kept), list(dict.fromkeys(dropped))


def only_generic(parsed: ParsedQuery) -> list[str]:
    """The generic exception names (`GENERIC_EXCEPTIONS`, spelt as printed) of a query whose
    every word of letters is one, each group a word alone (`RuntimeError`, `RuntimeError 28`;
    `OSError 28` is errno 28, `exception_numbers`); [] for any other query. Quoted, a name
    is searched as typed."""
    lettered = [group for group in parsed.groups if _has_letters(group)]
    if not lettered or not all(map(_is_generic_name, lettered)):
        return []
    return list(dict.fromkeys(group[0].words[0] for group in lettered))


def _is_generic_name(group: list[Atom]) -> bool:
    atom = group[0]
    return len(group) == 1 and not atom.quoted and atom.words[0] in GENERIC_EXCEPTIONS


def widened_without(
    parsed: ParsedQuery, words: tuple[str, ...], lexicon: dict[tuple[str, ...], list[VocabTerm]]
) -> tuple[ParsedQuery, list[str]]:
    """`parsed` widened with the vocabulary (`query.expand_with_vocabulary`), without the
    typed `words` no published case contains (`without_words`) when the rest still names a
    vocabulary term, and the words left out. A pasted error line names its failure
    (`CUDA error: ... was encountered`) and its other words can go; a question about
    something no case tells (`the office printer is out of toner and jams on every page`)
    names none, and without its words no case holds it would match whatever says `every
    page`: it is searched as typed, its closest cases partial matches."""
    trimmed, dropped = without_words(parsed, words)
    if dropped:
        widened = expand_with_vocabulary(copy.deepcopy(trimmed), lexicon)
        if widened.terms:
            return widened, dropped
    return expand_with_vocabulary(parsed, lexicon), []


def _has_letters(group: list[Atom]) -> bool:
    """Whether a group has a word of letters: a number alone says too little to be the query
    (`exitcode -9` without `exitcode`, in no case, would be every case with a 9)."""
    return any(char.isalpha() for atom in group for word in atom.words for char in word)


def in_no_case_notes(words: list[str]) -> tuple[list[str], frozenset[str]]:
    """The notes of a search run without `words`, which no published case contains, and the
    ids of the retracted cases they name with their reasons: the words the same retracted
    cases contain named in one note (`lookup.retracted_holding_note`), the others said in
    no case (`in_no_case_note`). Queries: `withdrawn.retracted_holding`'s."""
    # Imported here: withdrawn.py ranks with ranking.py, which reads this module's plans.
    from .withdrawn import retracted_holding

    held = retracted_holding(words)
    rest = [word for word in words if word not in held]
    notes = [in_no_case_note(rest)] if rest else []
    by_cases: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for word, cases in held.items():
        by_cases.setdefault(tuple(cases), []).append(word)
    notes += [retracted_holding_note(held_words, cases) for cases, held_words in by_cases.items()]
    return notes, frozenset(case_id for cases in by_cases for case_id, _ in cases)


def in_no_case_note(words: list[str]) -> str:
    """The note of a search run without words no case contains."""
    quoted = ", ".join(f"“{word}”" for word in words)
    return f"No case contains {quoted}: searched without {'it' if len(words) == 1 else 'them'}."


def generic_note(words: list[str]) -> str:
    """The note of a search run without generic exception names (`GENERIC_EXCEPTIONS`)."""
    one = len(words) == 1
    return (
        f"{', '.join(words)} {'is' if one else 'are'} printed by too many failures to tell them"
        f" apart: searched without {'it' if one else 'them'}."
    )


def lone_generic_note(words: list[str]) -> str:
    """The note of a query of generic exception names alone (`only_generic`): no case listed."""
    one = len(words) == 1
    return (
        f"{', '.join(words)} {'is' if one else 'are'} printed by too many failures to tell them"
        " apart, so no case is listed: add the message printed after"
        f" {'it' if one else 'them'}, or paste the log into log matching."
    )


def corrected_note(suggestion: str) -> str:
    """The note of a search run with its misspelt words corrected to `suggestion` (pages
    that show the correction as a link leave this note out)."""
    return f"Some words are in no case: searched for “{suggestion}” instead."


def _only_named(plan: SearchPlan) -> SearchPlan:
    """`plan` listing only the cases it names by id (`SearchPlan.case_ids`), each a strong
    match: a query with no word to rank by."""
    return dataclasses.replace(
        plan, cases=plan.cases.filter(id__in=plan.case_ids), whole=False, shared_counts=False
    )


# Filters whose counts may be kept in the shared cache: one included value in each of at
# most this many facets, nothing excluded, no date or number (what clicking facets gives).
SHARED_COUNT_FACETS = 3


def _few_facet_values(filters: CaseFilters | None) -> bool:
    """Whether the counts of `filters` may be shared (`SearchPlan.shared_counts`): the
    values are the vocabulary's, so a client cannot fill the cache with keys of its own
    making (dates, bounds and excluded words are free text or numbers)."""
    if filters is None:
        return False
    included = [values for values in filters.include.values() if values]
    return (
        0 < len(included) <= SHARED_COUNT_FACETS
        and all(len(values) == 1 for values in included)
        and not any(filters.exclude.values())
        and not (filters.published_after or filters.published_before or filters.bounds)
    )


def _unfiltered(filters: CaseFilters | None) -> bool:
    """Whether `filters` keep every published case."""
    return filters is None or not (
        any(filters.include.values())
        or any(filters.exclude.values())
        or filters.published_after
        or filters.published_before
        or filters.bounds
    )


def _empty_note(parsed: ParsedQuery) -> str:
    if parsed.dropped_stop_words:
        listed = ", ".join(sorted(set(parsed.dropped_stop_words))[:8])
        letters = " or single letters" if any(len(w) == 1 for w in parsed.dropped_stop_words) else ""
        return (
            f"The query has only very common words{letters} ({listed}), which are not searched:"
            " add a more specific word, such as an error message or a component."
        )
    if parsed.operators:
        listed = "/".join(dict.fromkeys(parsed.operators))
        return (
            f"The query holds only search operators ({listed}) and no word to search:"
            " type a word, an error message or a component."
        )
    return (
        "The query has no words to search for (only punctuation or symbols):"
        " type a word, an error message or a component."
    )


def _signatures(query: str, codes: tuple[str, ...]) -> tuple[str, ...]:
    """The failure tokens a query quoting what a program printed shows (`codes`: the codes
    whose patterns match it), as log matching reads them; () for any other query."""
    if not codes:
        return ()
    # Imported here: log matching loads the encoder and numpy, which a process that never
    # searches (`manage.py check`, a case page) should not.
    from .logmatch import signature_tokens

    return tuple(signature_tokens(query))
