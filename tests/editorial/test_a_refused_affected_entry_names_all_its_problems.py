"""An `affected` entry with two problems is refused for both at once in the admin.

The walk (W20) set IL-0450's Affected versions to `[{"component": "NCCLX", "fixed": "2.0",
"last_affected": "1.9"}]`: the save was refused for the unknown component alone, and the
next save, component fixed, for giving both bounds. The README says a refused save lists
all its problems at once. A save refused by a field of its own (a date that is none) reads
the other fields through import's validation (`forms.add_import_problems`), which kept a
field's first problem only.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents.models import Case

from .conftest import CASE_CHANGE, case_change_form

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("published", [None, "2025-13-45"])
def test_both_problems_of_the_entry_are_listed(client, editor, published):
    client.force_login(editor)
    data = case_change_form(client, "IL-0450")
    if published is not None:
        data["published"] = [published]
    data["affected"] = ['[{"component": "NCCLX", "fixed": "2.0", "last_affected": "1.9"}]']
    data["_continue"] = ["1"]
    before = Case.objects.get(id="IL-0450").modified
    response = client.post(reverse(CASE_CHANGE, args=["IL-0450"]), data)
    assert response.status_code == 200
    errors = list(response.context["adminform"].form.errors["affected"])
    assert errors == [
        "affected[0].component: unknown component 'NCCLX' (did you mean 'NCCL'?); name a component of"
        " the vocabulary (name, slug or synonym)",
        "affected[0]: give `fixed` (first version with the fix) or `last_affected` (when no fix exists),"
        " not both",
    ]
    assert Case.objects.get(id="IL-0450").modified == before  # nothing saved
