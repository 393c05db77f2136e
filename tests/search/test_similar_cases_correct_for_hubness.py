"""Similar cases correct the semantic part for hubness (`hubness.py`): each published case
stores the mean cosine to its k nearest cases by embedding, kept equal to a full recompute
through imports, edits, retractions and deletions, and a case near everybody is demoted.
Above `WORD_STATISTICS_FROM` (an increment's pool its candidates) a deleted case leaves every
list, and a list an increment reads loses a case no longer published."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from incidents import services
from incidents.models import Case
from incidents.search import candidate_cases, hubness, profiles
from incidents.search.models import CaseNeighbour, CaseProfile
from incidents.search.similarity import SEMANTIC_WEIGHT, _Corpus
from tests.conftest import load_fixture
from tests.search.test_increment_from_candidates import a_new_case_like, import_documents, retold

pytestmark = pytest.mark.django_db


def stored() -> dict[str, tuple[list[tuple[str, float]], float]]:
    """Case id -> (its stored nearest, its stored hubness), for profiles that store one."""
    rows = CaseProfile.objects.filter(hubness__isnull=False).values_list("case_id", "hub_nearest", "hubness")
    return {
        case_id: ([(o, c) for o, c in nearest or []], float(value or 0.0)) for case_id, nearest, value in rows
    }


def computed_directly() -> dict[str, tuple[list[tuple[str, float]], float]]:
    """Every published case's k nearest by embedding and their mean cosine, from the stored
    mean embeddings, every pair's cosine in float64 (no matrix blocks, no increments)."""
    held = [p for p in profiles.published() if p.embedding is not None]
    matrix = np.stack([p.embedding for p in held if p.embedding is not None]).astype(np.float64)
    cosines = matrix @ matrix.T
    found = {}
    for i, profile in enumerate(held):
        others = sorted((-cosines[i, j], held[j].id) for j in range(len(held)) if j != i)
        nearest = [(case_id, -negative) for negative, case_id in others[: hubness.NEAREST]]
        found[profile.id] = (nearest, sum(c for _, c in nearest) / len(nearest))
    return found


def assert_equal_to_a_full_recompute() -> None:
    now, expected = stored(), computed_directly()
    assert sorted(now) == sorted(expected)
    for case_id, (nearest, value) in expected.items():
        assert [o for o, _ in now[case_id][0]] == [o for o, _ in nearest], case_id
        assert [c for _, c in now[case_id][0]] == pytest.approx([c for _, c in nearest], abs=1e-5), case_id
        assert now[case_id][1] == pytest.approx(value, abs=1e-5), case_id


def test_a_cases_hubness_is_the_mean_cosine_to_its_k_nearest_cases():
    assert_equal_to_a_full_recompute()
    values = [value for _, value in stored().values()]
    assert len(values) == Case.objects.published().count()  # every fixture case is encoded
    assert 0.3 < min(values) < max(values) < 0.95  # real cosines, not a constant
    assert len(stored()["IL-0463"][0]) == hubness.NEAREST


def test_stored_values_equal_a_full_recompute_after_an_import_an_edit_a_retraction_and_a_deletion(tmp_path):
    before = stored()
    import_documents(tmp_path, a_new_case_like("IL-0463", "IL-9801"))  # a new case
    assert_equal_to_a_full_recompute()
    # The copy of IL-0463 is IL-0463's nearest, and entered the lists of others.
    assert stored()["IL-0463"][0][0][0] == "IL-9801"
    assert sum("IL-9801" in {o for o, _ in nearest} for nearest, _ in stored().values()) >= 2
    assert stored()["IL-0463"][1] > before["IL-0463"][1]
    import_documents(tmp_path, retold("IL-0447", as_case="IL-0428"))  # a case retold
    assert_equal_to_a_full_recompute()
    retracted = load_fixture("IL-0464")
    retracted["status"] = "retracted"
    import_documents(tmp_path, retracted)  # a case unpublished
    assert "IL-0464" not in stored()
    assert_equal_to_a_full_recompute()
    holders = [case_id for case_id, (nearest, _) in stored().items() if "IL-9801" in {o for o, _ in nearest}]
    assert holders
    services.delete_cases(["IL-9801"])
    assert_equal_to_a_full_recompute()
    assert not any("IL-9801" in {o for o, _ in nearest} for nearest, _ in stored().values())


def holding(case_id: str) -> set[str]:
    """The cases whose stored nearest name `case_id`."""
    return {owner for owner, (nearest, _) in stored().items() if case_id in {o for o, _ in nearest}}


def assert_real_cosines(case_ids) -> None:
    """The stored nearest of `case_ids` are k cases with their real cosines, best first, and
    their stored hubness is the mean."""
    vectors = {p.id: p.embedding.astype(np.float64) for p in profiles.published() if p.embedding is not None}
    for case_id in case_ids:
        nearest, value = stored()[case_id]
        assert len(nearest) == hubness.NEAREST, case_id
        cosines = [float(vectors[case_id] @ vectors[o]) for o, _ in nearest]
        assert [c for _, c in nearest] == pytest.approx(cosines, abs=1e-5), case_id
        assert cosines == sorted(cosines, reverse=True), case_id
        assert value == pytest.approx(sum(cosines) / len(cosines), abs=1e-5), case_id


def retract(tmp_path, case_id: str) -> None:
    document = load_fixture(case_id)
    document["status"] = "retracted"
    import_documents(tmp_path, document)


def a_case_in_many_lists() -> str:
    """The case whose id the most stored nearest name (ties by id)."""
    counts = Counter(o for nearest, _ in stored().values() for o, _ in nearest)
    return min(counts, key=lambda case_id: (-counts[case_id], case_id))


def test_the_holders_of_cases_are_the_lists_naming_them_asked_by_text_or_read_whole():
    """`hubness.holders` finds the lists naming a case by their JSON text for a few ids and
    by reading every list for more: both give the lists that name one, and no other."""
    counts = Counter(o for nearest, _ in stored().values() for o, _ in nearest)
    some = sorted(counts)[: hubness.HOLDERS_BY_TEXT + 4]
    assert len(some) > hubness.HOLDERS_BY_TEXT
    for case_id in some[:3]:
        assert hubness.holders([case_id]) == holding(case_id)
        assert len(holding(case_id)) == counts[case_id]
    few = some[: hubness.HOLDERS_BY_TEXT]
    assert hubness.holders(few) == set().union(*(holding(c) for c in few))
    assert hubness.holders(some) == set().union(*(holding(c) for c in some))
    assert hubness.holders(["IL-043"]) == set()  # the start of ten ids is none of them
    assert hubness.holders([]) == set()


def test_over_a_large_library_a_case_retracted_then_deleted_leaves_every_list(
    settings, tmp_path, monkeypatch
):
    """Above `WORD_STATISTICS_FROM` a retraction refills only the lists of its candidate
    corpus; the case, storing no hubness once retracted, is still found in the others' lists
    when it is deleted, and leaves them."""
    settings.WORD_STATISTICS_FROM = 0
    monkeypatch.setattr(candidate_cases, "KEPT", 7)
    gone = a_case_in_many_lists()
    before = {owner: stored()[owner][0] for owner in holding(gone)}
    assert len(before) >= 10
    retract(tmp_path, gone)
    assert gone not in stored()
    outside = holding(gone)
    assert outside and outside < before.keys()  # lists outside the retraction's pool keep it
    services.delete_cases([gone])
    assert not holding(gone)
    assert not CaseProfile.objects.filter(hub_nearest__isnull=False, case_id=gone).exists()
    for owner in outside:
        # Its other nearest stay (still the best of the library), one more comes in.
        kept = {o for o, _ in before[owner]} - {gone}
        assert kept < {o for o, _ in stored()[owner][0]}, owner
    assert_real_cosines(outside)


def test_over_a_large_library_a_list_naming_a_retracted_case_drops_it_when_next_pooled(
    settings, tmp_path, monkeypatch
):
    """A case outside the pool of a retraction keeps the retracted case in its nearest; the
    next increment that pools it (a new case telling its story, entering its list) drops it
    and refills the list, where merging the new case in would have kept it."""
    settings.WORD_STATISTICS_FROM = 0
    monkeypatch.setattr(candidate_cases, "KEPT", 7)
    gone = a_case_in_many_lists()
    retract(tmp_path, gone)
    owner = sorted(holding(gone))[0]
    before = stored()[owner][0]
    import_documents(tmp_path, a_new_case_like(owner, "IL-9806"))
    after = stored()[owner][0]
    assert gone not in {o for o, _ in after}
    assert [o for o, _ in after] == ["IL-9806", *(o for o, _ in before if o != gone)]
    assert_real_cosines([owner])


def test_the_semantic_part_is_the_cosine_less_half_of_each_hubness_centred_and_never_negative():
    corpus = _Corpus(profiles.published())
    centre = corpus.centre
    values = {case_id: value for case_id, (_, value) in stored().items()}
    assert centre == pytest.approx(sum(values.values()) / len(values))
    checked = 0
    for owner, other, part in CaseNeighbour.objects.values_list("case_id", "neighbour_id", "semantic_score"):
        a, b = corpus.profiles[owner].embedding, corpus.profiles[other].embedding
        assert a is not None and b is not None
        cosine = float(a @ b)
        expected = SEMANTIC_WEIGHT * min(max(cosine - (values[owner] + values[other]) / 2 + centre, 0.0), 1.0)
        assert part == pytest.approx(expected, abs=1e-4), (owner, other)
        checked += 1
    assert checked >= 9 * len(values)
    assert not CaseNeighbour.objects.filter(semantic_score__lt=0).exists()
    assert not CaseNeighbour.objects.filter(semantic_score__gt=SEMANTIC_WEIGHT).exists()


def test_a_hub_case_is_demoted():
    """The case with the highest hubness sits in fewer lists once corrected than scored by
    plain cosines, and every pair with it scores a smaller semantic part."""
    corpus = _Corpus(profiles.published())
    hub = max(corpus.profiles.values(), key=lambda p: p.hubness or 0.0)
    assert hub.hubness is not None and hub.hubness > corpus.centre
    corrected = corpus.best_all()
    plain = _Corpus(profiles.published())
    for profile in plain.profiles.values():
        profile.hub = None  # every case counted at the centre: the plain cosine
    uncorrected = plain.best_all()

    def lists_holding(lists) -> int:
        return sum(hub.id in {other for other, _ in ranked} for ranked in lists.values())

    assert lists_holding(corrected) < lists_holding(uncorrected)
    for other in corpus.profiles.values():
        if other.id != hub.id and (other.hubness or 0.0) >= corpus.centre - (hub.hubness - corpus.centre):
            with_correction = corpus.compare(hub, other)[3]
            without = plain.compare(plain.profiles[hub.id], plain.profiles[other.id])[3]
            assert with_correction <= without, other.id
