"""The duplicate check of an import looks at the documents that create a case, not at those
replacing a stored one (whatever its status): a case re-imported with an edit is not a
lookalike of itself or of the case it was copied from, even with `strict`."""

from __future__ import annotations

import json

import pytest

from incidents.models import Case
from incidents.problems import CaseImportError
from incidents.services import import_case_files
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def copy_of(tmp_path, case_id: str, new_id: str, status: str, tag: str = ""):
    document = load_fixture(case_id)
    document["id"], document["related"], document["status"] = new_id, [], status
    document["summary"] += tag
    folder = tmp_path / f"{new_id}-{status}-{len(tag)}"
    folder.mkdir()
    (folder / f"{new_id}.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


@pytest.mark.parametrize("status", ["published", "draft", "retracted"])
def test_a_stored_case_imported_again_is_not_checked(tmp_path, status):
    first = import_case_files(paths=[copy_of(tmp_path, "IL-0463", "IL-990001", status)])
    assert first.created == ["IL-990001"]
    if status == "published":  # a new near-copy of IL-0463 is one
        assert any("IL-990001 looks like IL-0463" in warning for warning in first.warnings)
    again = import_case_files(
        paths=[copy_of(tmp_path, "IL-0463", "IL-990001", status, " More.")], strict=True
    )
    assert again.updated == ["IL-990001"] and again.warnings == ()
    assert Case.objects.get(id="IL-990001").summary.endswith(" More.")


def test_a_new_near_copy_is_refused_with_strict(tmp_path):
    with pytest.raises(CaseImportError) as refused:
        import_case_files(paths=[copy_of(tmp_path, "IL-0463", "IL-990002", "published")], strict=True)
    assert any("IL-990002 looks like IL-0463" in problem.message for problem in refused.value.problems)
    assert not Case.objects.filter(id="IL-990002").exists()
