"""An import killed half-way changes nothing; two imports of overlapping cases at once end
with one consistent result and no duplicates. Both run `manage.py` in child processes
against a scratch database of the backend under test."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import CASES_DIR, VOCAB_FILE
from tests.factories import synthetic_case, write_cases
from tests.reliability.scratch import scratch_database, writing_rows

pytestmark = pytest.mark.django_db(transaction=True)

# "Thousands of cases": the import killed half-way is of this many new cases.
IMPORT_SIZE = 2_000


@pytest.fixture
def database(tmp_path):
    yield from scratch_database(tmp_path, "faults")


def export(database, directory: Path) -> dict[str, bytes]:
    result = database.manage("export_cases", str(directory))
    assert result.returncode == 0, result.stderr
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.json"))}


def migrate_and_import_fixtures(database) -> None:
    for args in (("migrate", "--no-input"), ("import_cases", "--vocab", str(VOCAB_FILE), str(CASES_DIR))):
        result = database.manage(*args)
        assert result.returncode == 0, result.stderr


def test_an_import_killed_half_way_leaves_the_database_as_before(database, tmp_path):
    migrate_and_import_fixtures(database)
    before = export(database, tmp_path / "before")
    batch = tmp_path / "batch"
    write_cases(batch, [synthetic_case(n) for n in range(1, IMPORT_SIZE + 1)])

    process = database.start("import_cases", "--vocab", str(VOCAB_FILE), str(batch))
    deadline = time.monotonic() + 300
    while not writing_rows(database, process):
        assert process.poll() is None, "the import ended before it was caught writing"
        assert time.monotonic() < deadline, "the import never started writing"
        time.sleep(0.05)
    # Caught writing and still running: the kill lands inside the import's transaction.
    assert process.poll() is None, "the import committed before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    after = export(database, tmp_path / "after")
    assert after == before
    assert len(after) == len(list(CASES_DIR.glob("*.json")))


def test_two_overlapping_imports_at_once_end_consistent(database, tmp_path):
    migrate_and_import_fixtures(database)
    first, second = tmp_path / "first", tmp_path / "second"
    write_cases(first, [synthetic_case(n) for n in range(1, 201)])
    # The overlap carries other content for the same ids: whichever import runs last wins.
    write_cases(second, [synthetic_case(n, seed=n + 7) for n in range(101, 301)])

    processes = [
        database.start("import_cases", "--vocab", str(VOCAB_FILE), str(directory))
        for directory in (first, second)
    ]
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        assert "Traceback" not in err
        assert out.startswith("imported 200 case(s)"), out

    exported = export(database, tmp_path / "after")
    synthetic = sorted(name for name in exported if name.startswith("IL-9"))
    assert synthetic == [f"IL-{900000 + n}.json" for n in range(1, 301)]
    # Each overlapping case is whole: exactly one of the two versions, never a mix.
    first_docs = {p.name: p.read_bytes() for p in first.glob("*.json")}
    second_docs = {p.name: p.read_bytes() for p in second.glob("*.json")}
    for n in range(101, 201):
        name = f"IL-{900000 + n}.json"
        stored = json.loads(exported[name])
        candidates = [json.loads(first_docs[name]), json.loads(second_docs[name])]
        assert stored["summary"] in {c["summary"] for c in candidates}
        winner = next(c for c in candidates if c["summary"] == stored["summary"])
        assert stored["title"] == winner["title"]
        assert stored["symptoms"]["description"] == winner["symptoms"]["description"]
