"""bench/report.md says when and at which commit each run was measured."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.tooling.conftest import run_child

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_run() -> ModuleType:
    """bench/run.py as a module (bench/ is not a package)."""
    sys.path.insert(0, str(BENCH))
    try:
        import run  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCH))
    return run


def test_each_run_names_its_own_time_and_commit():
    run = bench_run()
    report = json.loads((BENCH / "report.json").read_text())
    text = run.markdown(report)
    for measured in report["runs"]:
        heading = f"## {measured['backend']}, {measured['size']:,} synthetic cases"
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        assert f"- measured {measured['measured']} at {measured['commit']} on {measured['cpu']}" in section


def test_a_rewritten_report_is_not_a_change_of_the_measured_code(tmp_path, monkeypatch):
    run = bench_run()

    def git(*args: str) -> None:
        run_child("git", "-c", "user.name=t", "-c", "user.email=t@t", *args, cwd=tmp_path)

    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "report.json").write_text("{}")
    (tmp_path / "README.md").write_text("no figures yet\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "first")
    monkeypatch.setattr(run, "ROOT", tmp_path)
    head = run._commit()
    assert len(head) >= 7 and "+" not in head
    (tmp_path / "bench" / "report.json").write_text('{"runs": []}')  # a later run rewrote it
    (tmp_path / "README.md").write_text("figures\n")  # ...and the README's table
    assert run._commit() == head
    (tmp_path / "code.py").write_text("x = 2\n")
    assert run._commit() == f"{head}+changes"


def test_the_readme_table_is_the_one_the_report_gives():
    run = bench_run()
    report = json.loads((BENCH / "report.json").read_text())
    readme = (BENCH.parent / "README.md").read_text(encoding="utf-8")
    assert run.with_readme_table(readme, report) == readme  # written by --report, not by hand
    table = run.readme_table(report)
    small = [r for r in report["runs"] if r["size"] < run.README_SIZES_BELOW]
    assert len(table.splitlines()) == 2 + len(run.ENDPOINTS) + 6
    sqlite_10k = next(r for r in small if (r["backend"], r["size"]) == ("sqlite", 10_000))
    column = 1 + sorted(small, key=lambda r: (r["backend"] != "sqlite", r["size"])).index(sqlite_10k)
    # The run's floor, under the name it has today (runs measured while /healthz was the
    # floor hold it as "floor /healthz": its row is now /healthz's own).
    figures = run.endpoints_of(sqlite_10k)[run.floor_of(sqlite_10k)]
    [floor] = [line for line in table.splitlines() if line.startswith(f"| {run.floor_of(sqlite_10k)} |")]
    assert floor.split(" | ")[column] == f"{figures['rps']} ({figures['one_client']['latency_ms']['p95']})"


def test_a_readme_without_the_markers_is_refused():
    run = bench_run()
    with pytest.raises(ValueError, match="no .*bench table"):
        run.with_readme_table("# incidentlib\n", {"runs": []})
    with pytest.raises(ValueError, match="no .*bench table"):
        run.around_readme_table("# incidentlib\n")


def test_the_check_before_measuring_needs_no_report():
    """`make bench` looks for the markers before it measures, when there is no report yet
    (it once built a table from an empty one there and stopped at its first line)."""
    readme = (BENCH.parent / "README.md").read_text(encoding="utf-8")
    before, after = bench_run().around_readme_table(readme)
    assert before.endswith("\n") and after.startswith("\n\nAt **100,000**")
    assert readme.startswith(before) and readme.endswith(after)


def test_a_run_without_an_import_or_an_endpoint_shows_a_dash_in_the_readme_table():
    run = bench_run()
    report = json.loads((BENCH / "report.json").read_text())
    [reused] = [r for r in report["runs"] if (r["backend"], r["size"]) == ("sqlite", 1_000)]
    reused["import_first"] = reused["import_10_more"] = reused["neighbours_step"] = None  # BENCH_REUSE
    del reused["endpoints"]["stats"]  # an endpoint added after this run
    lines = run.readme_table(report).splitlines()
    assert lines[0].startswith(f"| req/s under {report['connections']} connections")
    cells = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1] for line in lines[2:]}
    assert cells["stats"] == "–"
    assert cells["first import, cases/s"] == cells["import 10 more, s"] == "–"
    assert cells["embeddings and lists step, s"] == "–"
    assert (
        cells["case JSON"]
        == f"{reused['endpoints']['case JSON']['rps']} ({run._one_client(reused, 'case JSON', 'p95')})"
    )


@pytest.mark.django_db
def test_the_drain_finds_the_database_backends_working_for_the_server():
    """`drain` waits for PostgreSQL's backends too: a search left behind runs its query on
    while its worker only waits. They are found by the database their command line names."""
    from django.db import connection

    run = bench_run()
    assert run.database_backends(None) == []
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        mine = cursor.fetchone()[0]
    name = connection.settings_dict["NAME"]
    assert mine in run.database_backends(f" {name} ".encode())
    assert mine not in run.database_backends(f" {name}_other ".encode())


def test_the_drain_counts_only_the_ticks_of_processes_still_there():
    """A backend that exits between two readings takes its ticks with it: they must not
    offset what the others used (a difference of sums read 105 - 140 = -35: idle, while one
    worked)."""
    run = bench_run()
    before = {10: 100, 11: 40}
    assert run.ticks_used(before, {10: 105}) == 5  # 11 exited: its 40 ticks are not subtracted
    assert run.ticks_used(before, {10: 100, 11: 40}) == 0
    assert run.ticks_used(before, {10: 100, 11: 40, 12: 3}) == 3  # 12 started: all of it counts
    assert run.ticks_used(before, {10: 101, 12: 30}) == 31
