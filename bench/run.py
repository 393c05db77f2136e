"""Speed and memory benchmark of the search module on synthetic cases (`make bench`).

Imports the real fixture cases plus N synthetic ones (bench/generate.py; default 2000,
`BENCH_CASES=N`) into a throw-away test database, then times: the import itself (with
index rows and incremental neighbour updates), re-importing 10 changed cases, searches
(median and 95th percentile), a 1 MB log through `match_log` (with peak Python memory),
and `similar_cases`. Prints a Markdown table of wall times and this process's CPU times
(on SQLite the database work is in-process; on PostgreSQL the server's time is not in CPU).
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

QUERIES = [
    "NCCL timeout",
    "Xid 79",
    "checkpoint save slow after adding nodes",
    "allreduce stuck",
    "cudaErrorIllegalAddress",
    '"loss spike" -TPU',
    "straggler OR thermal",
    "kubernetes api server overload",
    "the of",
    "ENOSPC disk full",
]


CPU: list[float] = []


def timed(fn, *args, **kwargs):
    """Run `fn`; return its result and wall seconds (CPU seconds of this process go to CPU)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    CPU.append(time.process_time() - cpu)
    return result, time.perf_counter() - started


def main() -> None:
    import django

    django.setup()
    import generate  # type: ignore[import-not-found]  # bench/ is sys.path[0] when run as a script
    from django.db import connection
    from django.test.utils import setup_test_environment

    count = int(os.environ.get("BENCH_CASES", "2000"))
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    rows = []
    try:
        from incidents.models import Case
        from incidents.search import match_log, search_cases, similar_cases
        from incidents.services import import_case_files

        vocab = [ROOT / "fixtures" / "vocab.json"]
        import_case_files(paths=[ROOT / "fixtures" / "cases"], vocab_paths=vocab)
        with tempfile.TemporaryDirectory() as folder:
            paths = generate.write(count, Path(folder))
            _, seconds = timed(import_case_files, paths=paths, vocab_paths=vocab)
            rows.append(
                (f"import {count} cases (index + neighbours)", f"{seconds:.1f} s (CPU {CPU[-1]:.1f} s)")
            )
            changed = generate.write(10, Path(folder) / "changed", start=count)
            _, seconds = timed(import_case_files, paths=changed, vocab_paths=vocab)
            rows.append(("import 10 more (incremental neighbours)", f"{seconds:.2f} s (CPU {CPU[-1]:.2f} s)"))
        total = Case.objects.count()

        times, cpu = [], []
        for _ in range(3):
            for query in QUERIES:
                _, seconds = timed(search_cases, query=query, limit=20)
                times.append(seconds * 1000)
                cpu.append(CPU[-1] * 1000)
        times.sort()
        cpu.sort()
        rows.append(
            ("search, median", f"{statistics.median(times):.0f} ms (CPU {statistics.median(cpu):.0f} ms)")
        )
        rows.append(
            (
                "search, 95th percentile",
                f"{times[int(len(times) * 0.95) - 1]:.0f} ms (CPU {cpu[int(len(cpu) * 0.95) - 1]:.0f} ms)",
            )
        )
        _, seconds = timed(search_cases, limit=20)
        rows.append(
            ("browse (no query) with facets", f"{seconds * 1000:.0f} ms (CPU {CPU[-1] * 1000:.0f} ms)")
        )

        # Every line distinct (a timestamp each), as in a real log: no help from repetition.
        lines, size, n = [], 0, 0
        while size < 990_000:
            n += 1
            line = [
                f"[{n:08d}] [rank3]:[E ProcessGroupNCCL.cpp:607] Watchdog caught collective "
                f"operation timeout: WorkNCCL(SeqNum={n}, OpType=ALLREDUCE) ran for 1800094 ms",
                f"[{n:08d}] NVRM: Xid (PCI:0000:87:00): 79, pid={n}, GPU has fallen off the bus.",
                f"[{n:08d}] iteration {n} | lm loss: 2.31 | grad norm: 0.41 | elapsed 1.02 s",
            ][n % 3]
            lines.append(line)
            size += len(line) + 1
        log = "\n".join(lines)
        tracemalloc.start()
        _, seconds = timed(match_log, log)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append(
            (
                "match_log, 1 MB log (distinct lines)",
                f"{seconds:.2f} s (CPU {CPU[-1]:.2f} s), peak Python memory {peak / 2**20:.0f} MiB",
            )
        )

        case = Case.objects.get(id="IL-0444")
        _, seconds = timed(similar_cases, case)
        rows.append(
            ("similar_cases (stored neighbours)", f"{seconds * 1000:.0f} ms (CPU {CPU[-1] * 1000:.0f} ms)")
        )
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        rows.append(("process peak RSS", f"{rss:.0f} MiB"))
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    print(f"## {connection.vendor}: {total} cases\n")
    print("| what | time |\n|---|---|")
    for what, value in rows:
        print(f"| {what} | {value} |")


if __name__ == "__main__":
    main()
