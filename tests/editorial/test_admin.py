"""The admin: editors edit cases and terms there; saving goes through the import service."""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents.history import case_history
from incidents.models import Case, Term
from incidents.search import search_cases

from .conftest import CASE_CHANGE, case_change_form, form_data

pytestmark = pytest.mark.django_db


def post(client, url: str, data: dict[str, list[str]]):
    return client.post(url, {k: v for k, v in data.items()}, follow=False)


def test_anonymous_is_sent_to_the_login_page(client):
    response = client.get(reverse("admin:incidents_case_changelist"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_a_user_without_the_editor_role_cannot_open_cases(client, outsider):
    client.force_login(outsider)
    assert client.get(reverse("admin:incidents_case_changelist")).status_code == 403
    assert client.get(reverse(CASE_CHANGE, args=["IL-0428"])).status_code == 403


@pytest.mark.parametrize(
    "url",
    [
        reverse("admin:incidents_case_changelist") + "?q=NCCL",
        reverse("admin:incidents_case_changelist") + "?status=queue",
        reverse("admin:incidents_case_changelist") + "?status=published&severity__exact=high",
        reverse("admin:incidents_term_changelist") + "?q=timeout&facet__exact=symptom",
    ],
)
def test_changelists_search_and_filter(client, editor, url):
    client.force_login(editor)
    assert client.get(url).status_code == 200


def test_the_case_search_finds_by_title_word(client, editor):
    client.force_login(editor)
    page = client.get(reverse("admin:incidents_case_changelist") + "?q=IL-0428").content.decode()
    assert "IL-0428" in page and "IL-0429" not in page


def test_saving_in_the_admin_updates_search_and_history(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0428")
    data["lessons"] = [data["lessons"][0] + "\nKeep a spare zyxwvutsplines counter."]
    response = post(client, reverse(CASE_CHANGE, args=["IL-0428"]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    case = Case.objects.get(id="IL-0428")
    assert case.lessons[-1] == "Keep a spare zyxwvutsplines counter."
    assert [hit.case.id for hit in search_cases(query="zyxwvutsplines").hits] == ["IL-0428"]
    [latest, *_] = case_history("IL-0428")
    assert latest.user == "edna"
    assert [c.field for c in latest.changes] == ["lessons"]
    assert latest.changes[0].new[-1] == "Keep a spare zyxwvutsplines counter."


def test_an_invalid_edit_is_refused_with_the_import_message_and_nothing_changes(client, editor):
    client.force_login(editor)
    before = Case.objects.get(id="IL-0428")
    data = case_change_form(client, "IL-0428")
    data["title"] = ["Too short"]  # the schema wants at least 10 characters
    data["time_to_detect"] = ["about an hour"]
    response = post(client, reverse(CASE_CHANGE, args=["IL-0428"]), data)
    assert response.status_code == 200
    page = response.content.decode()
    assert "title: &#x27;Too short&#x27; is too short" in page
    assert "facts.time_to_detect" in page
    after = Case.objects.get(id="IL-0428")
    assert (after.title, after.modified) == (before.title, before.modified)
    assert len(case_history("IL-0428")) == 1  # only the import


def test_sources_edited_inline_are_validated_and_saved_in_order(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0428")
    total = int(data["sources-TOTAL_FORMS"][0])
    data[f"sources-{total}-position"] = ["9"]
    data[f"sources-{total}-title"] = ["A second account"]
    data[f"sources-{total}-url"] = ["https://example.org/postmortem"]
    data[f"sources-{total}-case"] = ["IL-0428"]
    data["sources-TOTAL_FORMS"] = [str(total + 1)]
    assert post(client, reverse(CASE_CHANGE, args=["IL-0428"]), data).status_code == 302
    urls = list(Case.objects.get(id="IL-0428").sources.order_by("position").values_list("url", flat=True))
    assert urls[-1] == "https://example.org/postmortem"
    [latest, *_] = case_history("IL-0428")
    assert [c.field for c in latest.changes] == ["sources"]


def test_an_editor_adds_a_draft_with_the_next_free_id(client, editor):
    client.force_login(editor)
    page = client.get(reverse("admin:incidents_case_add")).content.decode()
    data = form_data(page, "case_form")
    root_cause = Term.objects.get(facet="root_cause", name="Software bug")
    topic = Term.objects.get(facet="topic", slug="interconnect")
    data.update(
        {
            "title": ["A new case typed into the admin by an editor"],
            "organization": ["Hugging Face"],
            "published": ["2025-01-02"],
            "summary": ["What happened."],
            "symptoms_description": ["Jobs hung."],
            "root_cause_category": [str(root_cause.pk)],
            "term_links-0-position": ["0"],
            "term_links-0-term": [str(topic.pk)],
            "sources-0-position": ["0"],
            "sources-0-url": ["https://example.org/new-case"],
        }
    )
    response = post(client, reverse("admin:incidents_case_add"), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    numbers = [
        int(i.split("-")[1])
        for i in Case.objects.exclude(title__startswith="A new").values_list("id", flat=True)
    ]
    new = Case.objects.get(title="A new case typed into the admin by an editor")
    assert new.id == f"IL-{max(numbers) + 1:04d}"
    assert new.status == Case.Status.DRAFT
    assert [t.slug for t in new.terms.filter(facet="topic")] == ["interconnect"]
    assert new.root_cause_category.name == "Software bug"
    assert case_history(new.id)[0].created


def test_the_preview_renders_a_draft_case_page(client, editor):
    client.force_login(editor)
    response = client.get(reverse("admin:incidents_case_preview", args=["IL-0428"]))
    assert response.status_code == 200
    assert "<h1>" in response.content.decode()


def test_nobody_deletes_cases(client, reviewer):
    client.force_login(reviewer)
    assert client.get(reverse("admin:incidents_case_delete", args=["IL-0428"])).status_code == 403


def test_term_patterns_are_checked_like_a_vocabulary_file(client, reviewer):
    client.force_login(reviewer)
    term = Term.objects.get(facet="symptom", slug="nccl-timeout")
    url = reverse("admin:incidents_term_change", args=[term.pk])
    data = form_data(client.get(url).content.decode(), "term_form")
    data["patterns"] = ["(unclosed"]
    response = post(client, url, data)
    assert response.status_code == 200
    assert "patterns[0]" in response.content.decode()
    data["patterns"] = [r"watchdog caught collective operation timeout"]
    data["synonyms"] = ["collective timeout\nnccl hang"]
    assert post(client, url, data).status_code == 302
    term.refresh_from_db()
    assert term.synonyms == ["collective timeout", "nccl hang"]


def test_an_editor_may_not_change_vocabulary(client, editor):
    client.force_login(editor)
    term = Term.objects.get(facet="symptom", slug="nccl-timeout")
    response = client.post(reverse("admin:incidents_term_change", args=[term.pk]), {"name": "x"})
    assert response.status_code == 403
