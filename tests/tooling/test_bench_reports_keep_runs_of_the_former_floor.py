"""A report keeps earlier runs (BENCH_KEEP): those measured while `/healthz` was the floor
hold it as "floor /healthz". They still render, beside runs whose floor is `/robots.txt`:
their row under /healthz's name today, their ratios said to be to /healthz."""

from __future__ import annotations

import copy
import json

from tests.tooling.test_bench_report import BENCH, bench_run


def two_runs() -> tuple[dict, dict, dict]:
    """A report of report.json's SQLite 1,000 run (keyed "floor /healthz", as every run
    of report.json so far) and a copy of its 10,000 run as a run of today measures it: the
    floor /robots.txt, /healthz a row of its own. Returns (report, former, today)."""
    run = bench_run()
    report = json.loads((BENCH / "report.json").read_text())
    former = next(r for r in report["runs"] if (r["backend"], r["size"]) == ("sqlite", 1_000))
    today = copy.deepcopy(next(r for r in report["runs"] if (r["backend"], r["size"]) == ("sqlite", 10_000)))
    assert "floor /healthz" in former["endpoints"] and run.FLOOR not in former["endpoints"]
    health = today["endpoints"].pop("floor /healthz")
    floor = copy.deepcopy(health)
    floor.update(rps=900.0, path="/robots.txt")
    floor["latency_ms"]["p50"] = 11.5
    floor["one_client"]["latency_ms"]["p95"] = 1.25
    today["endpoints"] = {run.FLOOR: floor, run.HEALTH: health, **today["endpoints"]}
    report["runs"] = [former, today]
    return report, former, today


def test_each_run_has_the_floor_it_was_measured_with():
    run = bench_run()
    _, former, today = two_runs()
    assert run.floor_of(former) == run.HEALTH
    assert run.floor_of(today) == run.FLOOR
    assert list(run.endpoints_of(former))[0] == run.HEALTH
    assert run.endpoints_of(former)[run.HEALTH] is former["endpoints"]["floor /healthz"]
    assert run.endpoints_of(today)[run.FLOOR]["rps"] == 900.0


def test_the_readme_table_puts_a_former_floor_in_the_healthz_row():
    run = bench_run()
    report, former, today = two_runs()
    rows = {
        line.split(" | ")[0].lstrip("| "): line.split(" | ")[1:]
        for line in run.readme_table(report).splitlines()[2:]
    }
    old = former["endpoints"]["floor /healthz"]
    health = today["endpoints"][run.HEALTH]
    assert rows["floor /robots.txt"] == ["–", "900.0 (1.25) |"]
    assert rows["health check /healthz"] == [
        f"{old['rps']} ({old['one_client']['latency_ms']['p95']})",
        f"{health['rps']} ({health['one_client']['latency_ms']['p95']}) |",
    ]
    assert "floor /healthz" not in rows


def test_the_report_says_which_floor_each_runs_ratios_are_to():
    run = bench_run()
    report, former, _ = two_runs()
    text = run.markdown(report)
    first, second = text.split("## sqlite, 10,000 synthetic cases", 1)
    assert "- ratios to `/healthz`, the floor when this run was measured" in first
    assert f"| health check /healthz | {former['endpoints']['floor /healthz']['rps']} |" in first
    assert "| floor /" not in first.split("## sqlite, 1,000 synthetic cases", 1)[1]
    assert "- ratios to the floor, `/robots.txt` (no database or cache read)" in second
    assert "| floor /robots.txt | 900.0 |" in second


def test_the_growth_table_reads_each_runs_own_floor():
    run = bench_run()
    report, former, today = two_runs()
    growth = "\n".join(run.growth_tables(report))
    assert "| floor /robots.txt | – | 11.5 | n/a |" in growth
    old, new = (
        r["endpoints"][k]["latency_ms"]["p50"] for r, k in ((former, "floor /healthz"), (today, run.HEALTH))
    )
    # Each cost is read above the larger of the runs' floors (/healthz's p50 in the first).
    floor = max(old, 11.5)
    assert (
        f"| health check /healthz | {old} | {new} | {run.verdict([1_000, 10_000], [old, new], floor)} |"
        in growth
    )
