"""The status workflow: who may make which transition, and what a status means for readers."""

from __future__ import annotations

import pytest

from incidents import history, services, workflow
from incidents.history import case_history
from incidents.models import Case
from incidents.search import search_cases

pytestmark = pytest.mark.django_db

S = Case.Status


def set_status(case_id: str, status: str) -> None:
    """Put a case in a starting state (recorded, so the next history entry diffs from it)."""
    Case.objects.filter(id=case_id).update(status=status)
    history.record(case_id, reason="test setup")


@pytest.mark.parametrize(
    ("start", "target", "role"),
    [
        (S.DRAFT, S.IN_REVIEW, "editor"),
        (S.IN_REVIEW, S.DRAFT, "editor"),
        (S.IN_REVIEW, S.PUBLISHED, "reviewer"),
        (S.PUBLISHED, S.RETRACTED, "reviewer"),
    ],
)
def test_allowed_transitions(start, target, role, editor, reviewer):
    set_status("IL-0430", start)
    user = editor if role == "editor" else reviewer
    services.change_status("IL-0430", target, user=user, reason="checked twice")
    assert Case.objects.get(id="IL-0430").status == target
    [latest, *_] = case_history("IL-0430")
    assert latest.user == user.username
    assert [(c.field, c.old, c.new) for c in latest.changes if c.field == "status"] == [
        ("status", start, target)
    ]


@pytest.mark.parametrize(
    ("start", "target"),
    [
        (S.DRAFT, S.PUBLISHED),  # skips review
        (S.PUBLISHED, S.DRAFT),
        (S.RETRACTED, S.PUBLISHED),
        (S.PUBLISHED, S.IN_REVIEW),
        (S.MERGED, S.PUBLISHED),
    ],
)
def test_refused_transitions(start, target, reviewer):
    set_status("IL-0430", start)
    with pytest.raises(workflow.WorkflowError):
        services.change_status("IL-0430", target, user=reviewer, reason="why not")
    assert Case.objects.get(id="IL-0430").status == start


def test_an_editor_cannot_publish_or_retract(editor):
    set_status("IL-0430", S.IN_REVIEW)
    with pytest.raises(workflow.NotAllowed):
        services.change_status("IL-0430", S.PUBLISHED, user=editor)
    set_status("IL-0430", S.PUBLISHED)
    with pytest.raises(workflow.NotAllowed):
        services.change_status("IL-0430", S.RETRACTED, user=editor, reason="wrong")


def test_someone_without_a_role_cannot_even_submit(outsider):
    set_status("IL-0430", S.DRAFT)
    with pytest.raises(workflow.NotAllowed):
        services.change_status("IL-0430", S.IN_REVIEW, user=outsider)


def test_a_retraction_needs_a_reason(reviewer):
    with pytest.raises(ValueError, match="reason"):
        services.change_status("IL-0430", S.RETRACTED, user=reviewer, reason="  ")
    assert Case.objects.get(id="IL-0430").status == S.PUBLISHED


def test_publishing_puts_a_case_into_search_and_retracting_takes_it_out(editor, reviewer):
    query = '"' + Case.objects.get(id="IL-0430").title.split(":")[0] + '"'
    assert "IL-0430" in [h.case.id for h in search_cases(query=query).hits]
    services.change_status("IL-0430", S.RETRACTED, user=reviewer, reason="the source was withdrawn")
    assert "IL-0430" not in [h.case.id for h in search_cases(query=query).hits]
    assert Case.objects.get(id="IL-0430").retraction_reason == "the source was withdrawn"


def test_merging_needs_a_reviewer_and_a_published_kept_case(editor, reviewer):
    with pytest.raises(workflow.NotAllowed):
        services.merge_cases("IL-0431", "IL-0430", user=editor)
    set_status("IL-0430", S.DRAFT)
    with pytest.raises(workflow.WorkflowError, match="must be published"):
        services.merge_cases("IL-0431", "IL-0430", user=reviewer)
    with pytest.raises(workflow.WorkflowError, match="itself"):
        services.merge_cases("IL-0431", "IL-0431", user=reviewer)


def test_a_merge_points_earlier_merges_at_the_kept_case(reviewer):
    services.merge_cases("IL-0432", "IL-0431", user=reviewer, reason="same outage")
    services.merge_cases("IL-0431", "IL-0430", user=reviewer, reason="same outage")
    assert dict(Case.objects.filter(status=S.MERGED).values_list("id", "merged_into_id")) == {
        "IL-0431": "IL-0430",
        "IL-0432": "IL-0430",
    }
    [latest, *_] = case_history("IL-0431")
    assert ("merged_into", None, "IL-0430") in [(c.field, c.old, c.new) for c in latest.changes]
    assert latest.changes[0] == next(c for c in latest.changes if c.field == "status")


def test_a_merged_id_is_never_reused_by_an_import(reviewer, tmp_path):
    from incidents.problems import CaseImportError
    from tests.conftest import load_fixture

    services.merge_cases("IL-0431", "IL-0430", user=reviewer)
    document = load_fixture("IL-0431")
    with pytest.raises(CaseImportError, match="was merged into 'IL-0430' and is never reused"):
        services.save_case_document(document, user=reviewer)


def test_the_next_id_counts_merged_ids(reviewer):
    highest = max(int(i.split("-")[1]) for i in Case.objects.values_list("id", flat=True))
    assert services.next_case_id() == f"IL-{highest + 1:04d}"
