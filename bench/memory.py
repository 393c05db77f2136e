"""Which endpoint raises a worker's peak resident memory: `make bench`'s server and load, one
endpoint at a time, with each worker's peak (VmHWM) reset before it.

    DATABASE_URL=sqlite:///var/bench/sqlite-100000.sqlite3 .venv/bin/python bench/memory.py
    BENCH_MEMORY_ONLY="log match 200 KB|search: short" ... bench/memory.py

Starts the production server as `bench/run.py` does (2 workers, DEBUG=0, Redis db 13 or
BENCH_CACHE_URL), warms it the same way (every endpoint 3 times from 2 clients; only the
floor and those named in BENCH_MEMORY_ONLY, separated by `|`, when it is set), then for each endpoint of
`run.ENDPOINTS` (or those named in BENCH_MEMORY_ONLY): resets each
worker's VmHWM to its present resident set (`/proc/<pid>/clear_refs`, value 5, Linux 4.0
and later, as root or the owner), drives it as `run.drive` does (BENCH_SECONDS, default 10,
with BENCH_CONNECTIONS, default 16), and prints each worker's resident set before and its
peak after, in MiB. The last line is every worker's VmHWM over the whole run, as `make
bench` reports it (the reset does not lower what the run as a whole reached: it is kept
apart here as the largest peak seen).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# bench/run.py: the server, the endpoints and the load, as `make bench` runs them (bench/ is on
# sys.path when this runs as a script).
import run  # type: ignore[import-not-found]


def _status_mib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024)
    raise KeyError(field)


def reset_peak(pid: int) -> None:
    """Set the VmHWM of process `pid` to its present resident set."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def main() -> int:
    url = os.environ.get("DATABASE_URL")
    if not url:
        print("DATABASE_URL: the database to serve (a copy of a `make bench` database)", file=sys.stderr)
        return 2
    only = [name.strip() for name in os.environ.get("BENCH_MEMORY_ONLY", "").split("|") if name.strip()]
    endpoints = [e for e in run.ENDPOINTS if not only or e[0] in only]
    seconds = int(os.environ.get("BENCH_SECONDS", "10"))
    connections = int(os.environ.get("BENCH_CONNECTIONS", "16"))
    run.WORK.mkdir(parents=True, exist_ok=True)
    run.ENDPOINTS[:] = [run.ENDPOINTS[0], *(e for e in endpoints if e is not run.ENDPOINTS[0])]
    run._empty_cache()
    server = run.Server(url)
    whole: dict[int, int] = {}
    rows = []
    try:
        server.wait()
        workers = sorted(server.workers())
        print(f"started: VmHWM {[_status_mib(p, 'VmHWM') for p in workers]} MiB", flush=True)
        print(f"warm-up: {run.warm(server)} s", flush=True)
        for pid in workers:
            whole[pid] = _status_mib(pid, "VmHWM")
        print(f"after the warm-up: VmHWM {[whole[p] for p in workers]} MiB", flush=True)
        for endpoint in endpoints:
            before = {pid: _status_mib(pid, "VmRSS") for pid in workers}
            for pid in workers:
                reset_peak(pid)
            result = run.drive(server, endpoint, seconds=seconds, connections=connections)
            peaks = {pid: _status_mib(pid, "VmHWM") for pid in workers}
            for pid in workers:
                whole[pid] = max(whole[pid], peaks[pid])
            rows.append({"endpoint": endpoint[0], "rss_before": before, "peak": peaks, "rps": result["rps"]})
            print(
                f"{endpoint[0]:<22} rss before {[before[p] for p in workers]}"
                f"  peak {[peaks[p] for p in workers]} MiB  ({result['rps']} req/s,"
                f" p50 {result['latency_ms']['p50']} ms)",
                flush=True,
            )
        print(f"whole run: VmHWM {[whole[p] for p in workers]} MiB", flush=True)
    finally:
        server.stop()
    out = os.environ.get("BENCH_MEMORY_OUT")
    if out:
        Path(out).write_text(json.dumps({"rows": rows, "whole": whole}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
