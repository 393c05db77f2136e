"""Candidate cases for an increment into a large library: instead of scoring a new or
changed case against every published case (O(N) profiles read and weighed), score it
against the published cases that share its strongest words or rarest terms.

A case's strongest words are those its TF-IDF vector weighs most, from the stored word
statistics (`word_statistics.py`), among the words at least one other case holds; its
rarest terms are those the similar-case score weighs most, on fewer than half the cases.
The full-text index gives up to `POSTINGS` cases holding each word, naming each term, and
holding the strongest two, three, four and six words together (the first it finds: a word
in most cases costs no more than a rare one, and where every word is common the cases
holding several are the likely ones); the `KEPT` cases sharing the most weight of what was
asked are the candidates. A case similar only through common words or through its passage
embeddings alone can be missed; `manage.py rebuild_search` scores every pair.

Used above `settings.WORD_STATISTICS_FROM` published cases (`word_statistics.in_use`), by
the neighbour update (`similarity.update_neighbours`) and the duplicate check of an import
(`similarity.TextIndex.for_texts`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from django.db.models import Count

from incidents.models import Case, CaseTerm, Term

from .backends import get_backend
from .profiles import Profile
from .query import Atom
from .text import WORD_RE
from .word_statistics import Statistics

STRONG_WORDS = 16  # words of a case asked of the full-text index
POSTINGS = 100  # cases read per word
KEPT = 300  # candidates kept per case
PREFIXES = (2, 3, 4, 6)  # the strongest words asked together, besides each alone
STRONG_TERMS = 4  # a case's rarest terms asked (by the words of their names)


def strongest_words(
    profile: Profile, statistics: Statistics, *, account_only: bool = False, counted: bool = True
) -> list[tuple[str, float]]:
    """(word, weight) of `profile`'s `STRONG_WORDS` strongest words held by at least one
    other published case and not by all, strongest first (ties by word). `counted`: the
    profile's own words are in `statistics` (a stored case); False for a text not stored
    yet (a duplicate check), whose word on a single case is the surest sign of a copy."""
    frequencies = statistics.accounts if account_only else statistics.texts
    total = max(statistics.total, 1)
    counts: dict[str, int] = dict(profile.counts)
    if not account_only:
        for word, count in profile.context.items():
            counts[word] = counts.get(word, 0) + count
    weighted = []
    for word, count in counts.items():
        df = frequencies.get(word, 0)
        if (2 if counted else 1) <= df < total:
            weighted.append((-(1 + math.log(count)) * math.log(total / df), word))
    weighted.sort()
    return [(word, -weight) for weight, word in weighted[:STRONG_WORDS]]


# What is asked of the index: the words of an atom (a word, or a term's name), what holding
# it means (the word, or "facet:slug") and its weight.
Asked = tuple[tuple[str, ...], str, float]


def distinctive_terms(profile: Profile, term_weights: Mapping[tuple[str, str], float]) -> list[Asked]:
    """(the words of its name, "facet:slug", weight) of `profile`'s `STRONG_TERMS` weightiest
    terms among `term_weights` (the distinctive ones: the caller leaves out those on most
    cases), weightiest first (ties by key)."""
    ranked = []
    for key, name in profile.terms.items():
        words = tuple(WORD_RE.findall(name.lower()))
        if words and key in term_weights:
            ranked.append((-term_weights[key], key, words))
    ranked.sort()
    return [(words, f"{key[0]}:{key[1]}", -weight) for weight, key, words in ranked[:STRONG_TERMS]]


def candidate_ids(
    profiles: Iterable[Profile],
    statistics: Statistics,
    *,
    account_only: bool = False,
    counted: bool = True,
    term_weights: Mapping[tuple[str, str], float] | None = None,
) -> dict[str, list[str]]:
    """Profile id -> its candidates (published case ids, itself left out), most shared
    weight first, at most `KEPT`. `counted`: as for `strongest_words`. `term_weights`: the
    weights of the profiles' distinctive terms, to ask for the cases naming their weightiest
    terms too (similar cases weigh shared terms; a duplicate check does not). Queries: one
    per `backends.COMPOUND_LIMIT` groups asked (`Backend.some_group_hits`)."""
    groups: dict[tuple[tuple[str, ...], ...], int] = {}  # atoms' words, all held -> group index
    asked: dict[str, list[tuple[int, list[tuple[str, float]]]]] = {}
    for profile in profiles:
        words = strongest_words(profile, statistics, account_only=account_only, counted=counted)
        # (the words of an atom, what holding it means, its weight): a word, or a term's name.
        spelled: list[Asked] = [((profile.surface.get(word, word),), word, weight) for word, weight in words]
        named = distinctive_terms(profile, term_weights) if term_weights else []
        # Each word and term alone, and the strongest words together: where every word is
        # common, the cases holding several of them are the ones worth reading first.
        chosen = [[item] for item in (*spelled, *named)]
        chosen += [spelled[:size] for size in PREFIXES if len(spelled) >= size]
        asked[profile.id] = [
            (
                groups.setdefault(tuple(atom for atom, _, _ in group), len(groups)),
                [(label, weight) for _, label, weight in group],
            )
            for group in chosen
        ]
    holders: dict[int, list[str]] = defaultdict(list)
    atoms = [[Atom(words) for words in group] for group in groups]
    for case_id, group in get_backend().some_group_hits(atoms, POSTINGS):
        holders[group].append(case_id)
    found: dict[str, list[str]] = {}
    for profile_id in asked:
        held: dict[str, dict[str, float]] = defaultdict(dict)
        for group, labels in asked[profile_id]:
            for case_id in holders[group]:
                held[case_id].update(labels)
        held.pop(profile_id, None)
        shared = {case_id: sum(weights.values()) for case_id, weights in held.items()}
        ranked = sorted(shared.items(), key=lambda kv: (-kv[1], kv[0]))[:KEPT]
        found[profile_id] = [case_id for case_id, _ in ranked]
    return found


def term_frequencies(keys: Iterable[tuple[str, str]]) -> Mapping[tuple[str, str], int]:
    """(facet, slug) -> published cases linked to that term, for `keys` (the root cause is a
    term link too). Queries: 4. The links of every status are counted from the link index
    alone, then those of the few unpublished cases taken off: joining each link to its case
    to test the status took 2.4 s at 20,000 synthetic cases, against 0.04 s."""
    wanted = set(keys)
    if not wanted:
        return {}
    term_ids = {
        (facet, slug): term_id
        for term_id, facet, slug in Term.objects.filter(slug__in={slug for _, slug in wanted}).values_list(
            "id", "facet", "slug"
        )
        if (facet, slug) in wanted
    }
    links = CaseTerm.objects.filter(term_id__in=term_ids.values()).order_by()
    counts = Counter(
        dict(links.values("term_id").annotate(cases=Count("id")).values_list("term_id", "cases"))
    )
    # By the status index (a `!=` would read every case).
    others = [status for status in Case.Status.values if status != Case.Status.PUBLISHED]
    unpublished = list(Case.objects.filter(status__in=others).order_by().values_list("id", flat=True))
    for at in range(0, len(unpublished), 5000):
        counts.subtract(
            links.filter(case_id__in=unpublished[at : at + 5000]).values_list("term_id", flat=True)
        )
    return {key: counts[term_id] for key, term_id in term_ids.items() if counts[term_id] > 0}
