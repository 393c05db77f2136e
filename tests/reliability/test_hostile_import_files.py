"""The hostile-input catalogue as import files: every entry placed in a case document that
`manage.py import_cases` reads (as the whole file, and as the id, title, a symptom tag, a
source URL, the published date, a count, a scale-table value, a reference's URL and id, an
error code and an affected range's component and versions of a real case). Each
import is refused with lines naming the file and a JSON path, or imports harmlessly; never
a traceback, and a refused import leaves the database as it was. Runs on the backend under
test (SQLite or PostgreSQL)."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from tests.conftest import VOCAB_FILE, load_fixture
from tests.reliability.hostile import HOSTILE_BODIES, HOSTILE_TEXT, RAW_QUERY_VALUES, store_state
from tests.reliability.scratch import scratch_database

pytestmark = pytest.mark.django_db

CASE_ID = "IL-0428"  # a real case with a scale table
NCCL_ISSUE = "https://github.com/NVIDIA/nccl/issues/1116"


@pytest.fixture
def cheap_derived_data(monkeypatch):
    """The written case's index rows are written for real (they hold its text); its passage
    embeddings and neighbour lists, numbers computed from that text in Python, are not: a
    re-encoded title costs seconds, and these tests write a few hundred."""
    monkeypatch.setattr("incidents.search.index.update_embeddings", lambda ids: None)
    monkeypatch.setattr(
        "incidents.search.index.update_neighbours", lambda ids, texts=None, published_before=None: None
    )


class Rollback(Exception):
    """Undoes an import that succeeded, so each value starts from the same database."""


def as_number(value: str) -> Any:
    """The value as the JSON number it spells (`1e309`, `NaN`, `2^63`), else the text."""
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if isinstance(parsed, int | float) and not isinstance(parsed, bool) else value


def placed(value: Any) -> dict[str, dict[str, Any]]:
    """A copy of the real case with `value` in one place, by the name of the place."""

    def document(change) -> dict[str, Any]:
        changed = copy.deepcopy(load_fixture(CASE_ID))
        change(changed)
        return changed

    def set_path(*path: Any, to: Any):
        def change(document: dict[str, Any]) -> None:
            target = document
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = to

        return change

    number = as_number(value)
    return {
        "id": document(set_path("id", to=value)),
        "title": document(set_path("title", to=value)),
        "tag": document(set_path("symptoms", "tags", to=[value])),
        "url": document(set_path("sources", 0, "url", to=value)),
        "published": document(set_path("published", to=value)),
        "count": document(set_path("environment", "accelerator_count", to=number)),
        "scale value": document(set_path("scale_tables", 0, "rows", 0, "values", "nodes", to=number)),
        # Upstream records, error codes and affected ranges (issue 15).
        "reference url": document(set_path("references", to=[{"kind": "issue", "url": value}])),
        "reference id": document(
            set_path("references", to=[{"kind": "issue", "id": value, "url": NCCL_ISSUE}])
        ),
        "error code": document(set_path("symptoms", "error_codes", to=[value])),
        "affected component": document(set_path("affected", to=[{"component": value}])),
        "affected version": document(
            set_path("affected", to=[{"component": "NCCL", "versions": [value], "fixed": value}])
        ),
    }


def write(path: Path, document: dict[str, Any]) -> Path:
    # Valid JSON text whatever the value: a lone surrogate is written as its \u escape; NaN
    # and Infinity as Python writes them (its own reader accepts them, so import must refuse).
    path.write_text(json.dumps(document, indent=2), encoding="ascii")
    return path


def import_file(path: Path) -> tuple[bool, str, str]:
    """(imported, stdout, stderr) of `import_cases path`, in process; a successful import
    is rolled back. A traceback (any exception but CommandError) fails the test here."""
    out, err = io.StringIO(), io.StringIO()
    imported = False
    try:
        with transaction.atomic():
            call_command("import_cases", str(path), stdout=out, stderr=err)
            imported = True
            raise Rollback
    except Rollback:
        pass
    except CommandError as error:
        assert "nothing was written" in str(error), str(error)
    return imported, out.getvalue(), err.getvalue()


def assert_refused_or_harmless(path: Path, where: str) -> None:
    before = store_state()
    imported, out, err = import_file(path)
    assert store_state() == before, where
    assert "Traceback" not in out + err, where
    if imported:
        assert out.startswith("imported 1 case(s)"), (where, out)
        return
    lines = [line for line in err.splitlines() if not line.startswith("warning:")]
    assert lines, where
    for line in lines:
        # file: JSON path: what is wrong
        assert line.startswith(f"{path}: $"), (where, line)
        assert len(line.split(": ", 2)) == 3 and line.split(": ", 2)[2].strip(), (where, line)


@pytest.mark.parametrize("kind,value", HOSTILE_TEXT, ids=[k for k, _ in HOSTILE_TEXT])
def test_each_hostile_value_in_a_case_file_is_refused_by_path_or_harmless(
    tmp_path, cheap_derived_data, kind, value
):
    whole = tmp_path / "whole.json"
    whole.write_bytes(value.encode("utf-8", "surrogatepass"))
    assert_refused_or_harmless(whole, f"{kind}: whole file")
    for place, document in placed(value).items():
        path = write(tmp_path / f"{place.replace(' ', '-')}.json", document)
        assert_refused_or_harmless(path, f"{kind}: {place}")


@pytest.mark.parametrize("kind,raw", RAW_QUERY_VALUES, ids=[k for k, _ in RAW_QUERY_VALUES])
def test_raw_bytes_in_a_case_file_are_refused_naming_the_file(tmp_path, cheap_derived_data, kind, raw):
    text = json.dumps(load_fixture(CASE_ID), ensure_ascii=False).encode()
    marker = b'"title": "'
    path = tmp_path / "raw.json"
    path.write_bytes(text.replace(marker, marker + unquote_to_bytes(raw), 1))
    assert_refused_or_harmless(path, kind)


@pytest.mark.parametrize("kind,body,content_type", HOSTILE_BODIES, ids=[b[0] for b in HOSTILE_BODIES])
def test_hostile_bodies_as_case_files_are_refused_or_harmless(
    tmp_path, cheap_derived_data, kind, body, content_type
):
    path = tmp_path / "body.json"
    path.write_bytes(body)
    assert_refused_or_harmless(path, kind)


def test_the_command_itself_prints_problems_and_no_traceback(tmp_path):
    """The real `manage.py import_cases` (a child process, a scratch database of the backend
    under test) on a folder of hostile files: exit status 1, `file: JSON path: problem`
    lines naming every file, no traceback, nothing written."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    values = dict(HOSTILE_TEXT)
    write(folder / "nul-title.json", placed(values["nul byte"])["title"])
    write(folder / "surrogate-title.json", placed(values["lone high surrogate"])["title"])
    write(folder / "huge-count.json", placed(values["2^64"])["count"])
    write(folder / "nan-scale.json", placed(values["not a number"])["scale value"])
    (folder / "nested.json").write_bytes(HOSTILE_BODIES[0][1])
    for database in scratch_database(tmp_path, "hostile_import"):
        assert database.manage("migrate", "--no-input").returncode == 0
        result = database.manage("import_cases", "--vocab", str(VOCAB_FILE), str(folder))
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stderr + result.stdout
        lines = result.stderr.splitlines()
        named = {line.split(": ", 1)[0] for line in lines if line.startswith(str(folder))}
        assert named == {str(p) for p in folder.glob("*.json")}, result.stderr
        assert "import refused: " in result.stderr and "nothing was written" in result.stderr
        exported = database.manage("export_cases", str(tmp_path / "after"))
        assert exported.returncode == 0 and "exported 0 case(s)" in exported.stdout
