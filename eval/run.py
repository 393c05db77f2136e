"""Search quality benchmark (`make eval`): the search module against a plain BM25 baseline.

Imports fixtures/ into a throw-away test database (SQLite in memory, or `test_<name>` on
the PostgreSQL server of DATABASE_URL), then measures over the judgements in this folder:
- search (queries.json): MRR@10, recall@1, recall@5 of `search_cases`;
- log matching (logs.json + logs/): the same figures for `match_log`;
- similar cases (similar.json): precision@3 of `similar_cases`;
and the same figures for rank-bm25's BM25Okapi over the same case texts (the index
columns of `incidents.search.text`), lower-cased words without stop words.

recall@k is the share of a query's relevant cases found in the top k, out of at most k
(so a query with 3 relevant cases scores 1.0 at k=1 when its top hit is one of them).
precision@3 counts relevant cases in the top 3, out of min(3, number judged relevant).

Writes eval/results-<vendor>.json (figures and each query's top hit, which
tests/search/test_backends_agree.py compares across backends) and prints a Markdown table.
`--check` exits 1 unless search beats the baseline on MRR@10.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")


def tokens(text: str) -> list[str]:
    from incidents.search.text import STOP_WORDS, WORD_RE

    return [w for w in WORD_RE.findall(text.lower()) if w not in STOP_WORDS]


def reciprocal_rank(ranked: list[str], relevant: list[str], k: int = 10) -> float:
    for position, case_id in enumerate(ranked[:k], start=1):
        if case_id in relevant:
            return 1.0 / position
    return 0.0


def recall(ranked: list[str], relevant: list[str], k: int) -> float:
    found = len(set(ranked[:k]) & set(relevant))
    return found / min(k, len(relevant))


def figures(runs: list[tuple[list[str], list[str]]]) -> dict[str, float]:
    n = max(len(runs), 1)
    return {
        "mrr@10": round(sum(reciprocal_rank(r, rel) for r, rel in runs) / n, 3),
        "recall@1": round(sum(recall(r, rel, 1) for r, rel in runs) / n, 3),
        "recall@5": round(sum(recall(r, rel, 5) for r, rel in runs) / n, 3),
    }


def precision_at_3(runs: list[tuple[list[str], list[str]]]) -> float:
    values = [len(set(r[:3]) & set(rel)) / min(3, len(rel)) for r, rel in runs]
    return round(sum(values) / max(len(values), 1), 3)


class Baseline:
    """BM25Okapi (rank-bm25) over each published case's full index text."""

    def __init__(self, cases):
        from rank_bm25 import BM25Okapi

        from incidents.search.text import index_columns

        self.ids = [case.id for case in cases]
        self.texts = {case.id: index_columns(case).as_tuple() for case in cases}
        self.bm25 = BM25Okapi([tokens(" ".join(self.texts[i])) for i in self.ids])

    def rank(self, text: str, *, exclude: str | None = None, k: int = 10) -> list[str]:
        scores = self.bm25.get_scores(tokens(text))
        order = sorted(range(len(self.ids)), key=lambda i: (-scores[i], self.ids[i]))
        return [self.ids[i] for i in order if self.ids[i] != exclude and scores[i] > 0][:k]


def run() -> dict:
    from incidents.models import Case
    from incidents.search import match_log, search_cases, similar_cases
    from incidents.services import import_case_files

    import_case_files(paths=[ROOT / "fixtures" / "cases"], vocab_paths=[ROOT / "fixtures" / "vocab.json"])
    cases = list(Case.objects.published().with_document())
    by_id = {c.id: c for c in cases}
    baseline = Baseline(cases)

    queries = json.loads((HERE / "queries.json").read_text())["queries"]
    logs = json.loads((HERE / "logs.json").read_text())["logs"]
    similar = json.loads((HERE / "similar.json").read_text())["similar"]

    started = time.perf_counter()
    search_runs, base_runs, top = [], [], {}
    misses = []
    for item in queries:
        ranked = [h.case.id for h in search_cases(query=item["q"], limit=10).hits]
        search_runs.append((ranked, item["relevant"]))
        base_runs.append((baseline.rank(item["q"]), item["relevant"]))
        top[item["q"]] = ranked[0] if ranked else None
        if not ranked or ranked[0] not in item["relevant"]:
            misses.append((item["q"], item["relevant"], ranked[:3]))
    search_seconds = time.perf_counter() - started

    log_runs, log_base = [], []
    for item in logs:
        text = (HERE / item["file"]).read_text(encoding="utf-8")
        log_runs.append(([h.case.id for h in match_log(text, limit=10)], item["relevant"]))
        log_base.append((baseline.rank(text), item["relevant"]))

    sim_runs, sim_base = [], []
    for case_id, relevant in similar.items():
        case = by_id[case_id]
        sim_runs.append(([s.case.id for s in similar_cases(case, limit=3)], relevant))
        sim_base.append((baseline.rank(" ".join(baseline.texts[case_id]), exclude=case_id, k=3), relevant))

    from django.db import connection

    return {
        "backend": connection.vendor,
        "cases": len(cases),
        "counts": {"search": len(queries), "logs": len(logs), "similar": len(similar)},
        "search": figures(search_runs),
        "search_baseline": figures(base_runs),
        "logs": figures(log_runs),
        "logs_baseline": figures(log_base),
        "similar": {"precision@3": precision_at_3(sim_runs)},
        "similar_baseline": {"precision@3": precision_at_3(sim_base)},
        "search_ms_per_query": round(1000 * search_seconds / max(len(queries), 1), 1),
        "top1": top,
        "misses": misses,
    }


def table(results: dict) -> str:
    rows = [
        "| task | system | MRR@10 | recall@1 | recall@5 | precision@3 |",
        "|---|---|---|---|---|---|",
    ]
    for task, label in (("search", "search"), ("logs", "log matching")):
        for system, key in (("incidentlib", task), ("BM25 baseline", f"{task}_baseline")):
            f = results[key]
            rows.append(
                f"| {label} ({results['counts'][task]}) | {system} | {f['mrr@10']:.3f}"
                f" | {f['recall@1']:.3f} | {f['recall@5']:.3f} | |"
            )
    for system, key in (("incidentlib", "similar"), ("BM25 baseline", "similar_baseline")):
        rows.append(
            f"| similar cases ({results['counts']['similar']}) | {system} | | | |"
            f" {results[key]['precision@3']:.3f} |"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail unless search beats BM25")
    parser.add_argument("--misses", action="store_true", help="list queries missed at rank 1")
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        results = run()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    out = HERE / f"results-{results['backend']}.json"
    out.write_text(
        json.dumps({k: v for k, v in results.items() if k != "misses"}, indent=2, ensure_ascii=False) + "\n"
    )
    print(
        f"## {results['backend']}: {results['cases']} cases, {results['search_ms_per_query']} ms per search\n"
    )
    print(table(results))
    other = HERE / ("results-postgresql.json" if results["backend"] == "sqlite" else "results-sqlite.json")
    if other.exists():
        theirs = json.loads(other.read_text())["top1"]
        same = sum(1 for q, top in results["top1"].items() if theirs.get(q) == top)
        print(
            f"\nSame top result as {other.name}: {same}/{len(results['top1'])}"
            f" ({100 * same / max(len(results['top1']), 1):.0f}%)"
        )
    if args.misses:
        print("\nMissed at rank 1:")
        for q, relevant, got in results["misses"]:
            print(f"  {q!r}: want {relevant}, got {got}")
    if args.check and results["search"]["mrr@10"] <= results["search_baseline"]["mrr@10"]:
        print("search does not beat the BM25 baseline on MRR@10", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
