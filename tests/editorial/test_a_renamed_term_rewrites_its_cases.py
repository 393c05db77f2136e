"""A renamed vocabulary term changes the documents of the cases that show it (documents name
symptom tags, components, root causes and error codes by name; topics and workloads by slug):
those cases move in the change feed and get a history row, by hand (`services.save_term`) or
by a vocabulary import that gives a stored slug another name (`write_documents`). An edit
that leaves every document as it was moves nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from incidents import services
from incidents.models import Case, CaseTerm, Facet, Term

pytestmark = pytest.mark.django_db

VOCAB = Path(settings.FIXTURES_DIR) / "vocab.json"


def users_of(term: Term) -> set[str]:
    return set(CaseTerm.objects.filter(term=term).values_list("case_id", flat=True))


def state(case_ids: set[str]) -> dict[str, tuple]:
    """Each case's modified time and number of history rows."""
    return {
        case.id: (case.modified, Case.history.filter(id=case.id).count())
        for case in Case.objects.filter(id__in=case_ids)
    }


def changed_ids(client, since: str) -> set[str]:
    body = client.get("/api/changes", {"since": since}).json()
    return {entry["id"] for entry in body["results"]}


def test_renaming_a_symptom_tag_by_hand_moves_every_case_showing_it(client, editor):
    term = Term.objects.get(facet=Facet.SYMPTOM, name="Node NotReady")
    shown = users_of(term)
    assert len(shown) >= 3
    bystander = Case.objects.published().exclude(id__in=shown).order_by("id").first()
    assert bystander is not None
    before = state({*shown, bystander.id})
    since = max(modified for modified, _ in before.values()).isoformat()

    term.name = "Node not ready"
    services.save_term(term, user=editor)

    after = state({*shown, bystander.id})
    for case_id in shown:
        assert after[case_id][0] > before[case_id][0]
        assert after[case_id][1] == before[case_id][1] + 1
        latest = Case.history.filter(id=case_id).order_by("-history_date").first()
        assert latest is not None
        assert latest.history_change_reason == "term renamed: Node NotReady -> Node not ready"
        assert latest.history_date == after[case_id][0]  # one write, one time
        assert "Node not ready" in latest.document["symptoms"]["tags"]
        assert "Node not ready" in client.get(f"/api/cases/{case_id}").json()["symptoms"]["tags"]
    assert after[bystander.id] == before[bystander.id]
    assert shown <= changed_ids(client, since)
    assert bystander.id not in changed_ids(client, since)


def test_an_edit_that_changes_no_document_moves_no_case(editor):
    symptom = Term.objects.get(facet=Facet.SYMPTOM, name="Node NotReady")
    topic = Term.objects.filter(facet=Facet.TOPIC, case_links__isnull=False).distinct().first()
    assert topic is not None
    shown = users_of(symptom) | users_of(topic)
    before = state(shown)

    symptom.description = "A node left the Ready state (Kubernetes) or was drained by the scheduler."
    services.save_term(symptom, user=editor)
    topic.name = topic.name + " (renamed)"  # documents name a topic by its slug
    services.save_term(topic, user=editor)

    assert state(shown) == before


def test_a_vocabulary_import_renaming_a_stored_slug_moves_the_stored_cases(client, tmp_path):
    term = Term.objects.get(facet=Facet.SYMPTOM, name="Node NotReady")
    shown = users_of(term)
    before = state(shown)
    vocabulary = json.loads(VOCAB.read_text(encoding="utf-8"))
    [entry] = [t for t in vocabulary["symptom_tags"] if t["name"] == "Node NotReady"]
    entry.update(name="Node not ready", slug=term.slug)
    vocab_file = tmp_path / "vocab.json"
    vocab_file.write_text(json.dumps(vocabulary), encoding="utf-8")
    cases = tmp_path / "cases"
    cases.mkdir()
    other = Case.objects.published().exclude(id__in=shown).order_by("id").first()
    assert other is not None
    (cases / f"{other.id}.json").write_text(
        (Path(settings.FIXTURES_DIR) / "cases" / f"{other.id}.json").read_text(encoding="utf-8"),
        encoding="utf-8",
    )

    result = services.import_case_files(paths=[cases], vocab_paths=[vocab_file])

    assert result.unchanged == [other.id]
    assert Term.objects.get(pk=term.pk).name == "Node not ready"
    after = state(shown)
    for case_id in shown:
        assert after[case_id][0] > before[case_id][0]
        assert after[case_id][1] == before[case_id][1] + 1
        latest = Case.history.filter(id=case_id).order_by("-history_date").first()
        assert latest is not None and latest.history_change_reason == "term renamed by a vocabulary import"
    # The search index names the term by its new name.
    found = client.get("/api/cases/", {"symptom": term.slug, "q": '"Node not ready"'}).json()
    assert {hit["id"] for hit in found["results"]} == shown
