"""Above `settings.WORD_STATISTICS_FROM` published cases, an increment weighs words from the
stored word statistics and scores candidates from the search index (`word_statistics.py`,
`candidate_cases.py`) instead of reading every published profile. On the fixture library,
where every case sharing a strong word is a candidate, it must store what the exact path
stores; the statistics must always count what a recount counts."""

from __future__ import annotations

import copy

import pytest
from django.apps import apps
from django.db import transaction

from incidents import services
from incidents.models import Case
from incidents.search import candidate_cases, profiles, similarity, word_statistics
from incidents.search.backends import get_backend
from incidents.search.models import CaseNeighbour, WordStatistic
from incidents.search.query import Atom
from incidents.search.similarity import NEIGHBOUR_COLUMNS, TextIndex
from incidents.search.word_vectors import word_vectors
from incidents.workflow import REVIEWER
from tests.conftest import VOCAB_FILE, ids_quoting, load_fixture
from tests.editorial.conftest import make_user
from tests.factories import write_cases

pytestmark = pytest.mark.django_db


def statistics() -> dict[str, tuple[int, int]]:
    return {w: (a, t) for w, a, t in WordStatistic.objects.values_list("word", "accounts", "texts")}


def recounted() -> dict[str, tuple[int, int]]:
    with transaction.atomic():
        word_statistics.recount()
        counted = statistics()
        transaction.set_rollback(True)
    return counted


def import_documents(tmp_path, *documents: dict) -> services.ImportResult:
    folder = tmp_path / f"batch{len(list(tmp_path.iterdir()))}"
    write_cases(folder, list(documents))
    return services.import_case_files(paths=[folder], vocab_paths=[VOCAB_FILE])


def retold(case_id: str, as_case: str) -> dict:
    """`case_id`'s document telling `as_case`'s account (title, symptoms, summary)."""
    document, other = load_fixture(case_id), load_fixture(as_case)
    document["title"] = other["title"]
    document["summary"] = other["summary"]
    document["symptoms"] = {**document["symptoms"], "description": other["symptoms"]["description"]}
    return document


def a_new_case_like(case_id: str, new_id: str) -> dict:
    """A new case telling `case_id`'s story again, citing other URLs."""
    document = copy.deepcopy(load_fixture(case_id))
    document["id"] = new_id
    document["title"] = "Seen again: " + document["title"]
    document["sources"] = [{**s, "url": s["url"] + "#again"} for s in document["sources"]]
    document.pop("related", None)
    return document


def test_the_statistics_count_what_a_recount_counts_through_every_kind_of_write(tmp_path):
    assert word_statistics.consistent()
    assert statistics() == recounted()
    assert statistics()[word_statistics.TOTAL][1] == Case.objects.published().count()
    import_documents(tmp_path, a_new_case_like("IL-0463", "IL-9801"))  # a new case
    import_documents(tmp_path, retold("IL-0447", as_case="IL-0428"))  # a case retold
    retracted = load_fixture("IL-0464")
    retracted["status"] = "retracted"
    import_documents(tmp_path, retracted)  # a case unpublished
    assert statistics() == recounted()
    assert word_statistics.consistent()
    services.delete_cases(["IL-9801"])
    assert statistics() == recounted()
    services.merge_cases("IL-0447", "IL-0428", user=make_user("rita", REVIEWER), reason="the same incident")
    assert statistics() == recounted()
    assert word_statistics.consistent()
    assert statistics()[word_statistics.TOTAL][1] == Case.objects.published().count()


def test_a_write_outside_the_services_is_seen_as_a_disagreement():
    assert word_statistics.consistent()
    Case.objects.filter(id="IL-0464").update(status=Case.Status.RETRACTED)
    assert not word_statistics.consistent()
    word_statistics.recount()
    assert word_statistics.consistent()


def test_the_migration_counts_as_a_recount_does():
    migration = __import__("incidents.migrations.0022_word_statistics", fromlist=["count_stored_profiles"])
    expected = statistics()
    WordStatistic.objects.all().delete()
    migration.count_stored_profiles(apps, None)
    assert statistics() == expected
    assert len(expected) > 1000  # real words, not the total alone


def test_vectors_of_some_texts_weighed_by_the_whole_collection_are_those_of_the_whole():
    texts = [
        ({"nccl": 3, "timeout": 1},),
        ({"nccl": 1, "xid": 2, "fabric": 1},),
        ({"checkpoint": 2, "timeout": 1},),
        ({"nccl": 1, "checkpoint": 1, "lustre": 4},),
        ({"xid": 1, "fabric": 1, "lustre": 1},),
    ]
    whole = word_vectors(texts, kept=3)
    frequencies = {"nccl": 3, "timeout": 2, "xid": 2, "fabric": 2, "checkpoint": 2, "lustre": 2}
    some = word_vectors([texts[1], texts[3]], kept=3, frequencies=frequencies, total=5)
    assert some.vector(0) == whole.vector(1)
    assert some.vector(1) == whole.vector(3)
    # Weighed by the two texts alone, the words differ: the test compares something.
    assert word_vectors([texts[1], texts[3]], kept=3).vector(0) != whole.vector(1)


def test_shared_vectors_of_some_texts_read_held_by_two_from_the_whole_collection():
    """Similar cases keep the words at least two texts hold (`shared`): in a partial corpus a
    word may be on one of its texts and another outside it (kept), or on one text only
    (left out), as in the whole collection; the stored frequencies tell which."""
    texts = [
        ({"nccl": 3, "timeout": 1, "zorblax": 2},),
        ({"nccl": 1, "xid": 2, "fabric": 1, "gbs": 1},),
        ({"checkpoint": 2, "timeout": 1, "gbs": 2},),
        ({"nccl": 1, "checkpoint": 1, "lustre": 4, "quintafrend": 1},),
        ({"xid": 1, "fabric": 1, "lustre": 1},),
    ]
    whole = word_vectors(texts, kept=4, shared=True)
    frequencies = {"nccl": 3, "timeout": 2, "xid": 2, "fabric": 2, "checkpoint": 2, "lustre": 2, "gbs": 2}
    frequencies |= {"zorblax": 1, "quintafrend": 1}
    some = word_vectors([texts[1], texts[3]], kept=4, frequencies=frequencies, total=5, shared=True)
    assert "gbs" in some.vector(0) and "quintafrend" not in some.vector(1)
    assert some.vector(0) == whole.vector(1)
    assert some.vector(1) == whole.vector(3)


def test_group_hits_hold_every_word_of_the_group():
    groups = [[Atom(("nccl",)), Atom(("watchdog",))], [Atom(("checkpoint",))]]
    hits = get_backend().some_group_hits(groups, 4)
    both = set(ids_quoting("nccl")) & set(ids_quoting("watchdog"))
    first = [case_id for case_id, group in hits if group == 0]
    second = [case_id for case_id, group in hits if group == 1]
    assert len(first) == 4 and set(first) <= both, first
    assert len(second) == 4 and set(second) <= set(ids_quoting("checkpoint")), second


def rows_after(write, settings, *, partial: bool) -> list[tuple]:
    """The neighbour rows after `write()`, by the candidate path or the exact one, rolled back.
    A row's shared words as a set: a list rewritten keeps the stored row of a neighbour
    outside the candidates, whose words were ordered by the rarities of their time, where
    the exact path orders them by today's (the scores are the stored ones in both)."""
    settings.WORD_STATISTICS_FROM = 0 if partial else 10**9
    with transaction.atomic():
        write()
        rows = sorted(
            (*row[:-1], sorted(row[-1])) for row in CaseNeighbour.objects.values_list(*NEIGHBOUR_COLUMNS)
        )
        transaction.set_rollback(True)
    return rows


@pytest.mark.parametrize("scenario", ["a new case", "a case retold", "a case retracted"])
def test_with_every_case_a_candidate_the_candidate_path_stores_what_the_exact_path_stores(
    scenario, settings, tmp_path, monkeypatch
):
    """The scoring of a partial corpus (stored rarities, lists merged with stored rows of
    cases outside it) is exact: asked every word of a case, the index gives every case
    sharing one, here every published case. What fewer words miss is measured by
    `make bench` (docs/scaling.md), not here."""
    monkeypatch.setattr(candidate_cases, "STRONG_WORDS", 10_000)
    if scenario == "a new case":
        document = a_new_case_like("IL-0463", "IL-9802")
    elif scenario == "a case retold":
        document = retold("IL-0447", as_case="IL-0463")
    else:
        document = load_fixture("IL-0463")
        document["status"] = "retracted"
    before = sorted(CaseNeighbour.objects.values_list(*NEIGHBOUR_COLUMNS))
    exact = rows_after(lambda: import_documents(tmp_path, document), settings, partial=False)

    def whole_read(*args, **kwargs):
        raise AssertionError("the candidate path read every published profile")

    monkeypatch.setattr(profiles, "_every_published", whole_read)
    monkeypatch.setattr(profiles, "_published_since", whole_read)
    assert rows_after(lambda: import_documents(tmp_path, document), settings, partial=True) == exact
    assert exact != before  # the write changed lists: the comparison is not of two unchanged tables


def test_the_candidates_read_are_bounded_whatever_the_library(settings, tmp_path, monkeypatch):
    settings.WORD_STATISTICS_FROM = 0
    monkeypatch.setattr(candidate_cases, "KEPT", 7)
    corpora: list[int] = []
    corpus_init = similarity._Corpus.__init__

    def counting_init(self, profiles_given, **kwargs):
        corpora.append(len(profiles_given))
        corpus_init(self, profiles_given, **kwargs)

    monkeypatch.setattr(similarity._Corpus, "__init__", counting_init)
    import_documents(tmp_path, a_new_case_like("IL-0463", "IL-9803"))
    # The duplicate check's index (7 candidates) and the update's corpus (the case and 7).
    assert corpora == [7, 8]
    listed = list(CaseNeighbour.objects.filter(case_id="IL-9803").values_list("neighbour_id", flat=True))
    assert listed[0] == "IL-0463"  # its own story is its first neighbour


def test_a_partial_duplicate_index_finds_what_the_whole_one_finds(settings):
    document = load_fixture("IL-0489")
    text = "\n".join([document["title"], document["summary"], document["symptoms"]["description"]])
    whole = TextIndex().matches(text, min_score=0.2, limit=5)
    partial = TextIndex.for_texts([text]).matches(text, min_score=0.2, limit=5)
    assert partial == whole
    assert whole[0][0] == "IL-0489" and len(whole) >= 2


def test_a_list_losing_a_neighbour_keeps_its_other_stored_neighbours(settings, tmp_path, monkeypatch):
    """With few candidates a case (as in a library far larger than `KEPT`), a list that loses
    a neighbour is recomputed from the candidates and its other stored neighbours, so none
    of those is dropped for a weaker candidate. (Weaker as scored now: without the retracted
    case some words are on fewer cases, and a stored neighbour can fall below a case that
    was just behind it, as a full recompute would put it.)"""
    settings.WORD_STATISTICS_FROM = 0
    monkeypatch.setattr(candidate_cases, "KEPT", 7)
    holders = list(CaseNeighbour.objects.filter(neighbour_id="IL-0433").values_list("case_id", flat=True))
    before = {
        owner: set(CaseNeighbour.objects.filter(case_id=owner).values_list("neighbour_id", flat=True))
        for owner in holders
    }
    assert len(holders) >= 10  # a case in many lists
    retracted = load_fixture("IL-0433")
    retracted["status"] = "retracted"
    import_documents(tmp_path, retracted)
    corpus = similarity._Corpus(profiles.published())
    dropped = 0
    for owner, neighbours in before.items():
        scores = dict(CaseNeighbour.objects.filter(case_id=owner).values_list("neighbour_id", "score"))
        after = set(scores)
        assert "IL-0433" not in after, owner
        assert len(after) == len(neighbours), owner
        for gone in neighbours - {"IL-0433"} - after:
            now = round(corpus.compare(corpus.profiles[owner], corpus.profiles[gone])[0], 4)
            assert min(scores[case_id] for case_id in after - neighbours) >= now, (owner, gone)
            dropped += 1
    # One list does: IL-0565's tenth, IL-0611 (0.2154), now scores just below IL-0496 and IL-0480.
    assert dropped <= 1, dropped


def test_a_new_text_is_matched_by_the_words_only_one_case_holds(settings):
    """A text not stored yet does not count itself: a word one case holds is asked."""
    stats = statistics()
    document = load_fixture("IL-0489")
    account = profiles.text_profile("IL-0489", {}, [document["title"], document["summary"]])
    rare = sorted(w for w in account.counts if stats.get(w, (0, 0))[0] == 1)
    assert len(rare) >= 3, rare
    text = " ".join(account.surface.get(w, w) for w in rare)
    whole = TextIndex().matches(text, limit=3)
    assert whole and whole[0][0] == "IL-0489"
    assert TextIndex.for_texts([text]).matches(text, limit=3) == whole


def test_a_new_cases_list_from_its_candidates_is_the_one_a_full_rebuild_stores(settings, tmp_path):
    """With the candidates as the library's size asks (no word forced), the new case's own
    list, scored against its candidates under the stored statistics, is the list that
    scoring every pair again gives it: same neighbours, ranks, scores and reasons."""
    settings.WORD_STATISTICS_FROM = 0
    import_documents(tmp_path, a_new_case_like("IL-0463", "IL-9804"))
    increment = list(CaseNeighbour.objects.filter(case_id="IL-9804").values_list(*NEIGHBOUR_COLUMNS))
    similarity.rebuild_neighbours()
    rebuilt = list(CaseNeighbour.objects.filter(case_id="IL-9804").values_list(*NEIGHBOUR_COLUMNS))
    assert increment == rebuilt
    assert len(rebuilt) == similarity.NEIGHBOURS and rebuilt[0][1] == "IL-0463"


def test_each_term_is_counted_once_per_increment(settings, tmp_path, monkeypatch):
    """Counting a term's links reads every link of it (O(N) for a common topic): the terms of
    the searched cases are counted once, and the rest of the corpus's terms after them."""
    settings.WORD_STATISTICS_FROM = 0
    asked: list[set[tuple[str, str]]] = []
    counting = candidate_cases.term_frequencies

    def recorded(keys):
        asked.append(set(keys))
        return counting(keys)

    monkeypatch.setattr(candidate_cases, "term_frequencies", recorded)
    import_documents(tmp_path, a_new_case_like("IL-0463", "IL-9805"))
    assert len(asked) == 2
    searched, rest = asked
    assert searched and rest and not searched & rest
    assert ("symptom", "nccl-timeout") in searched | rest


def test_a_duplicate_checks_candidates_are_read_as_accounts(django_assert_num_queries):
    """The duplicate check compares accounts: its candidates' profiles are read without their
    term links, context or embedding, in 2 queries (published ids with root causes, stored rows)."""
    ids = ["IL-0428", "IL-0463", "IL-0489", "IL-9999"]  # the last is no case
    whole = {p.id: p for p in profiles.published_among(ids)}
    with django_assert_num_queries(2):
        accounts = profiles.published_among(ids, account_only=True)
    assert [p.id for p in accounts] == ["IL-0428", "IL-0463", "IL-0489"] == sorted(whole)
    for profile in accounts:
        assert profile.counts == whole[profile.id].counts and profile.counts
        assert profile.context == {} and whole[profile.id].context
        assert profile.embedding is None
