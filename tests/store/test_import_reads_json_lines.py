"""`import_cases` reads a `*.jsonl` file as JSON Lines, one case document a line, as
`/api/export` serves them (it used to say `$: invalid JSON: Extra data (line 2, column 1)`);
each problem names the file and line, then the JSON path."""

from __future__ import annotations

import json

import pytest

from incidents.models import Case
from incidents.problems import CaseImportError
from incidents.services import import_case_files
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def test_each_line_is_a_case(tmp_path):
    export = tmp_path / "export.jsonl"
    documents = [synthetic_case(1), synthetic_case(2)]
    export.write_text("".join(json.dumps(d) + "\n" for d in documents) + "\n", encoding="utf-8")

    result = import_case_files(paths=[export])

    assert result.created == ["IL-900001", "IL-900002"]
    assert Case.objects.get(id="IL-900002").title == documents[1]["title"]


def test_each_problem_names_its_line_and_json_path(tmp_path):
    export = tmp_path / "export.jsonl"
    good, bad = synthetic_case(1), synthetic_case(2, status="live", related=["IL-7777"])
    export.write_text(
        "\n".join([json.dumps(good), "", json.dumps(bad), '{"id": ', json.dumps(good)]) + "\n",
        encoding="utf-8",
    )

    with pytest.raises(CaseImportError) as refused:
        import_case_files(paths=[export])

    assert [str(p) for p in refused.value.problems] == [
        f"{export}:line 4: $: invalid JSON: Expecting value (column 8)",
        f"{export}:line 3: $.status: 'live' is not one of ['draft', 'in_review', 'published', 'retracted']",
        f"{export}:line 5: $.id: duplicate id 'IL-900001': also in {export}:line 1",
        f"{export}:line 3: $.related[0]: related case 'IL-7777' is neither in this import nor in the "
        "database",
    ]
    assert not Case.objects.filter(id__in=["IL-900001", "IL-900002"]).exists()
