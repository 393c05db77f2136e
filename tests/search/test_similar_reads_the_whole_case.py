"""Similar cases compare the whole case text but who and where; duplicate checks compare
accounts only (`profiles.py`), and profiles stored before that are refreshed on migrate."""

from __future__ import annotations

import pytest

from incidents.apps import _refresh_old_profiles
from incidents.duplicates import document_text, find_lookalikes
from incidents.models import Case
from incidents.search import profiles, similar_cases
from incidents.search.models import CaseNeighbour, CaseProfile
from incidents.search.similarity import TextIndex, rebuild_neighbours
from tests.conftest import load_fixture
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

FIX = "Pinned the zorvath allocator and drained the quillmark queue before restarting the blenwick pool."


ACCOUNTS = {
    71: ("Checkpoint writer stalled on the orbex filesystem", "Saving shards blocked on orbex metadata."),
    72: ("Decode latency doubled after the plinth gateway upgrade", "Plinth routed tokens via a slow hop."),
    73: ("Dataloader workers crashed reading tarvel archives", "Tarvel archives had truncated members."),
    74: ("Evaluation job lost its scheduler lease on kestrom", "Kestrom leases expired under clock skew."),
}


def twins(number: int, **overrides) -> dict:
    """A synthetic case whose account (title, symptoms, summary) is its own."""
    title, summary = ACCOUNTS[number]
    document = synthetic_case(number, seed=number, title=title, summary=summary, **overrides)
    document["symptoms"] = {**document["symptoms"], "description": summary}
    return document


def neighbour(owner: str, other: str) -> CaseNeighbour | None:
    return CaseNeighbour.objects.filter(case_id=owner, neighbour_id=other).first()


def test_cases_fixed_the_same_way_are_similar_though_their_accounts_differ(import_synthetic):
    first, second = import_synthetic(
        twins(71, remediation=[FIX], lessons=[FIX]), twins(72, remediation=[FIX], lessons=[FIX])
    )
    row = neighbour(first, second)
    assert row is not None and row.rank == 1
    assert {"zorvath", "quillmark", "blenwick"} <= set(row.shared_words)
    assert row.text_score > 0
    # The remediation is context, not account: the account text holds none of its words.
    profile = next(p for p in profiles.published() if p.id == first)
    assert "zorvath" in profile.context and "zorvath" not in profile.counts
    # A duplicate check reads accounts: a text telling only that fix is neither case.
    assert TextIndex().matches("zorvath quillmark blenwick") == []
    assert find_lookalikes(text=FIX) == []
    account = Case.objects.get(id=first)
    own = find_lookalikes(text=f"{account.title}\n{account.summary}")
    assert [d.case_id for d in own] == [first]


def test_who_and_where_are_not_the_failure(import_synthetic):
    documents = []
    for number in (73, 74):
        document = twins(number)
        document["environment"] = {
            **document["environment"],
            "cluster": "Vantorix-7 quillmark supercluster",
        }
        document["facts"] = {
            **document["facts"],
            "scope": "Every zembla tenant",
            "users_affected": "All grofty users",
        }
        documents.append(document)
    first, second = import_synthetic(*documents)
    profile = next(p for p in profiles.published() if p.id == first)
    for word in ("quillmark", "vantorix", "zembla", "grofty"):
        assert word not in profile.context and word not in profile.counts, word
    row = neighbour(first, second)
    assert row is None or not {"quillmark", "zembla"} & set(row.shared_words)


def test_profiles_stored_before_the_context_counts_are_read_from_the_text():
    computed = {p.id: p for p in profiles.published()}
    CaseProfile.objects.update(context_counts=None)
    read = {p.id: p for p in profiles.published()}
    assert {i: dict(p.context) for i, p in read.items()} == {i: dict(p.context) for i, p in computed.items()}
    assert all(p.context for p in read.values())
    assert not any(p.context for p in profiles.published(account_only=True))


def test_the_account_is_the_same_fields_everywhere():
    document = load_fixture("IL-0428")
    case = Case.objects.get(id="IL-0428")
    assert document_text(document) == "\n".join(
        getattr(case, name) for name in profiles.TEXT_FIELDS if getattr(case, name)
    )
    assert [path.replace(".", "_") for path in profiles.ACCOUNT_PATHS] == list(profiles.TEXT_FIELDS)


def test_profiles_stored_before_the_context_counts_are_refreshed_after_migrate():
    Case.objects.filter(id="IL-0610").update(status=Case.Status.DRAFT)
    CaseNeighbour.objects.filter(neighbour_id="IL-0610").delete()
    rebuild_neighbours()
    before = {case_id: list(rows) for case_id, rows in _lists().items()}
    CaseProfile.objects.update(context_counts=None)
    CaseNeighbour.objects.filter(case_id="IL-0463").delete()
    _refresh_old_profiles(sender=None, verbosity=0)
    # Every stale row, the draft's too: the next migrate finds nothing to do.
    assert not CaseProfile.objects.filter(context_counts__isnull=True).exists()
    assert _lists() == before
    assert [s.case.id for s in similar_cases(Case.objects.get(id="IL-0463"))] == before["IL-0463"][:5]


def _lists() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    rows = CaseNeighbour.objects.order_by("case_id", "rank").values_list("case_id", "neighbour_id")
    for owner, other in rows:
        found.setdefault(owner, []).append(other)
    return found
