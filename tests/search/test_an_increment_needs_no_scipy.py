"""Importing a few cases, into a large library (the candidate path, `candidate_cases.py`)
or a small one, scores them and checks them for duplicates without scipy: importing it was
0.2 of the 1.3 CPU s of `manage.py import_cases` of 10 cases (issue #10). Only blocks of
hundreds of rows (a full rebuild) multiply with scipy.sparse (`row_products.py`)."""

from __future__ import annotations

import sys

import pytest

from incidents.search.models import CaseNeighbour
from tests.search.test_increment_from_candidates import a_new_case_like, import_documents

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("library", ["large", "small"])
def test_importing_a_case_imports_no_scipy(library, settings, tmp_path, monkeypatch):
    settings.WORD_STATISTICS_FROM = 0 if library == "large" else 10**9
    # `import scipy` and `from scipy import sparse` now raise ImportError, imported or not.
    monkeypatch.setitem(sys.modules, "scipy", None)
    result = import_documents(tmp_path, a_new_case_like("IL-0463", "IL-9811"))
    assert result.created == ["IL-9811"]
    # The duplicate check ran and found the story it retells.
    assert any("IL-0463" in str(warning) for warning in result.warnings), result.warnings
    listed = list(CaseNeighbour.objects.filter(case_id="IL-9811").values_list("neighbour_id", flat=True))
    assert listed[0] == "IL-0463" and len(listed) == 10
    assert CaseNeighbour.objects.filter(case_id="IL-0463", neighbour_id="IL-9811").exists()
