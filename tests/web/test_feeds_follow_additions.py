"""The Atom feeds follow what the library adds (`Case.added`, when a case was first published
here), not the dates of the cases' sources: a case added today about a 2023 incident is the
feed's first entry. Each entry's `published` is when it was added, its `updated` its last
change."""

from __future__ import annotations

import datetime
import importlib
import xml.etree.ElementTree as ET

import pytest
from django.apps import apps
from django.core.management import call_command

from incidents import services
from incidents.backup import restore_backup
from incidents.models import Case
from incidents.workflow import EDITOR, REVIEWER
from tests.editorial.conftest import make_user
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def entries(client, url: str = "/feeds/cases.atom") -> list[ET.Element]:
    response = client.get(url)
    assert response.status_code == 200
    return ET.fromstring(response.content).findall(f"{ATOM}entry")


def ids_of(items: list[ET.Element]) -> list[str]:
    return [e.find(f"{ATOM}title").text.split(":")[0] for e in items]


def text(entry: ET.Element, name: str) -> str:
    element = entry.find(f"{ATOM}{name}")
    assert element is not None and element.text is not None
    return element.text


def when(entry: ET.Element, name: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text(entry, name))


def test_cases_added_now_with_old_sources_lead_the_feed(client, import_synthetic):
    newest_source = Case.objects.published().order_by("-published").first()
    old = [
        synthetic_case(n, published=date, topics=["interconnect"])
        for n, date in ((631, "2023-04-02"), (632, "2024-11-20"), (634, "2025-01-09"), (635, "2023-08-15"))
    ]
    added = import_synthetic(*old)
    assert all(d["published"] < newest_source.published.isoformat() for d in old)
    items = entries(client)
    assert ids_of(items)[:4] == sorted(added, reverse=True)  # one import: written in id order
    first = Case.objects.get(id=added[-1])
    assert when(items[0], "published") == first.added == first.modified
    assert "Source dated 2023-08-15." in text(items[0], "summary")
    # The topic feed follows additions too.
    assert ids_of(entries(client, "/feeds/topics/interconnect.atom"))[:4] == sorted(added, reverse=True)


def test_an_edit_moves_updated_but_not_the_place_in_the_feed(client, import_synthetic):
    first, second = import_synthetic(synthetic_case(1), synthetic_case(2))
    editor = make_user("edna", EDITOR)
    document = {**synthetic_case(1), "lessons": ["A lesson written later."]}
    services.save_case_document(document, user=editor, reason="edit")
    items = entries(client)
    assert ids_of(items)[:2] == [second, first]
    edited = Case.objects.get(id=first)
    entry = items[1]
    assert edited.added is not None
    assert when(entry, "published") == edited.added < edited.modified == when(entry, "updated")


def test_a_draft_is_added_when_it_is_published_and_keeps_that_time(client, import_synthetic):
    [draft] = import_synthetic(synthetic_case(3, status="draft"))
    assert Case.objects.get(id=draft).added is None
    import_synthetic(synthetic_case(4))
    editor, reviewer = make_user("edna", EDITOR), make_user("rita", REVIEWER)
    services.change_status(draft, "in_review", user=editor)
    published = services.change_status(draft, "published", user=reviewer)
    assert published.added == published.modified
    assert ids_of(entries(client))[0] == draft
    services.change_status(draft, "retracted", user=reviewer, reason="withdrawn")
    # Published again (a retraction is undone by a write of the document): still added then.
    services.save_case_document(synthetic_case(3), user=reviewer, reason="source restored")
    again = Case.objects.get(id=draft)
    assert (again.status, again.added) == ("published", published.added)


def test_the_migration_and_a_restore_read_added_from_the_history(tmp_path, import_synthetic):
    [case_id] = import_synthetic(synthetic_case(5))
    expected = dict(Case.objects.values_list("id", "added"))
    assert expected[case_id] is not None and None not in expected.values()
    Case.objects.update(added=None)
    migration = importlib.import_module("incidents.migrations.0025_case_added")
    migration.added_from_history(apps, None)
    assert dict(Case.objects.values_list("id", "added")) == expected

    call_command("export_cases", str(tmp_path / "backup"), "--backup")
    Case.objects.update(added=None)
    restore_backup(tmp_path / "backup")
    assert dict(Case.objects.values_list("id", "added")) == expected
