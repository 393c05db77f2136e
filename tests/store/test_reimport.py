"""Running the import again is safe: unchanged cases are left alone."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from incidents.models import Case
from incidents.search import index
from tests.conftest import CASES_DIR, VOCAB_FILE, fixture_ids, load_fixture
from tests.factories import write_cases

pytestmark = pytest.mark.django_db


def test_reimporting_the_fixtures_changes_nothing(capsys, monkeypatch):
    before = dict(Case.objects.values_list("id", "modified"))
    sent = []
    written = index.cases_written

    def recording(case_ids, *rest):
        ids = list(case_ids)
        if ids:
            sent.append(ids)
        written(ids, *rest)

    monkeypatch.setattr(index, "cases_written", recording)
    call_command("import_cases", "--vocab", str(VOCAB_FILE), str(CASES_DIR))
    count = len(fixture_ids())
    assert f"imported {count} case(s): 0 new, 0 updated, {count} unchanged" in capsys.readouterr().out
    assert dict(Case.objects.values_list("id", "modified")) == before
    assert sent == []


def test_an_edited_case_is_the_only_one_rewritten(tmp_path):
    before = dict(Case.objects.values_list("id", "modified"))
    documents = [load_fixture(case_id) for case_id in fixture_ids()]
    [edited] = [d for d in documents if d["id"] == "IL-0428"]
    edited["lessons"].append("A lesson added by an editor.")
    write_cases(tmp_path, documents)
    call_command("import_cases", str(tmp_path), "--vocab", str(VOCAB_FILE))
    after = dict(Case.objects.values_list("id", "modified"))
    assert [case_id for case_id in after if after[case_id] != before[case_id]] == ["IL-0428"]
    assert Case.objects.get(id="IL-0428").lessons[-1] == "A lesson added by an editor."
