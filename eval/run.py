"""Search quality (`make eval`): tuning set and held-out test set, both backends, against
a plain BM25 and a semantic-only baseline, in one run.

For each backend (SQLite always; PostgreSQL when one answers at `--postgres`, default
EVAL_POSTGRES_URL) a child process imports into a throw-away test database:
1. fixtures/ -> the TUNING set (eval/queries.json, logs.json + logs/, similar.json), the
   only set the ranking was ever tuned on (`eval/calibrate.py`);
   and, over the same cases, the VALIDATION set (eval/validation/, same form as the test
   set), written on 6 December by another fresh helper under the test set's rules: it
   tells whether a change tuned on the tuning set generalises, so that the test set is read
   only to report (helpers tuning the ranking run `--tuning-only`);
   and, in a database of its own (fixtures plus its 14 foreign cases, imported after them as
   the test set's are), the second VALIDATION set (eval/validation2/), written on the
   evening of 6 December by a fresh helper under the same rules: the first validation set
   had been read to decide several changes, and it has no foreign case;
2. plus eval/heldout/foreign/ (22 real cases with their own vocabulary) -> the held-out
   TEST set (eval/heldout/queries.json, logs.json + logs/, similar.json), written by a
   helper who never saw the ranking code or any result. It is only measured here.
Measured per set and system (incidentlib; rank-bm25's BM25Okapi over the same case texts;
cosine of the same sentence embeddings alone):
- search: MRR@10, recall@1, recall@5 (matches, then partial matches, as the page lists them);
- log matching: MRR@10 and recall@5 over logs with a matching case, and how many logs with
  no matching case still got a "strong" hit (and any hit at all);
- similar cases: precision@3.
recall@k is the share of a query's relevant cases in the top k, out of at most k;
precision@3 counts relevant cases among the top 3, out of min(3, number judged relevant).
Also the share of held-out queries for which both backends put the same case first.

Writes eval/results-<vendor>.json and prints Markdown tables. `--check` exits 1 when the
held-out set misses the targets of issue 17 on a backend: search MRR@10 >= 0.95 with at
most half of BM25's misses (1 - MRR), recall@5 >= 0.98; log recall@5 >= 0.95 with no strong
hit for a log without a matching case; similar precision@3 >= 0.80; backends agreeing on
the first case for >= 95% of the queries.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HELDOUT = HERE / "heldout"
VALIDATION = HERE / "validation"
VALIDATION2 = HERE / "validation2"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

TARGETS = {
    "search_mrr": 0.95,
    "search_recall5": 0.98,
    "search_miss_ratio": 0.5,  # (1 - MRR) at most this times BM25's
    "logs_recall5": 0.95,
    "no_match_strong": 0,
    "similar_p3": 0.80,
    "backends_agree": 0.95,
}


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
    runs = [r for r in runs if r[1]]
    n = max(len(runs), 1)
    return {
        "mrr@10": round(sum(reciprocal_rank(r, rel) for r, rel in runs) / n, 3),
        "recall@1": round(sum(recall(r, rel, 1) for r, rel in runs) / n, 3),
        "recall@5": round(sum(recall(r, rel, 5) for r, rel in runs) / n, 3),
    }


def count_labels(counts: dict[str, int], listed: list[tuple[str, str | None]], relevant: list[str]) -> None:
    """Add one query's (or log's) labels to `counts`: whether its first hit is strong and
    relevant or strong and not, and its strong hits (of the first 10) and how many are relevant:
    what "strong" promises ("we have seen this") is read from these."""
    strong = [case_id for case_id, label in listed if label == "strong"]
    if listed and listed[0][1] == "strong":
        counts["first_strong_relevant" if listed[0][0] in relevant else "first_strong_not_relevant"] += 1
    counts["strong"] += len(strong)
    counts["strong_relevant"] += sum(1 for case_id in strong if case_id in relevant)


def precision_at_3(runs: list[tuple[list[str], list[str]]]) -> float:
    values = [len(set(r[:3]) & set(rel)) / min(3, len(rel)) for r, rel in runs if rel]
    return round(sum(values) / max(len(values), 1), 3)


class Baselines:
    """BM25Okapi (rank-bm25) over each published case's full index text, and cosine of
    the stored passage embeddings alone."""

    def __init__(self, cases):
        from rank_bm25 import BM25Okapi

        from incidents.search.semantic import load_vectors
        from incidents.search.text import index_columns

        self.ids = [case.id for case in cases]
        self.texts = {case.id: index_columns(case).as_tuple() for case in cases}
        self.bm25 = BM25Okapi([tokens(" ".join(self.texts[i])) for i in self.ids])
        self.vectors = load_vectors()
        self.case_vectors = dict(zip(self.vectors.ids, self.vectors.case_matrix(), strict=True))

    def rank(self, text: str, *, exclude: str | None = None, k: int = 10) -> list[str]:
        scores = self.bm25.get_scores(tokens(text))
        order = sorted(range(len(self.ids)), key=lambda i: (-scores[i], self.ids[i]))
        return [self.ids[i] for i in order if self.ids[i] != exclude and scores[i] > 0][:k]

    def semantic(self, text: str, *, k: int = 10) -> list[str]:
        from incidents.search.semantic import query_vector

        vector = query_vector(text)
        if vector is None:
            return []
        scores = self.vectors.case_scores(vector)
        return sorted(scores, key=lambda c: (-scores[c], c))[:k]

    def semantic_similar(self, case_id: str, k: int = 3) -> list[str]:
        mine = self.case_vectors.get(case_id)
        if mine is None:
            return []
        scores = {c: float(v @ mine) for c, v in self.case_vectors.items() if c != case_id}
        return sorted(scores, key=lambda c: (-scores[c], c))[:k]


def measure(queries, logs, similar, log_dir: Path, no_answer: Sequence[str] = ()) -> dict:
    """Every figure for one set over the cases imported now. `no_answer`: queries no case
    answers, counted by whether they get a strong hit or any match."""
    from incidents.models import Case
    from incidents.search import read_log, search_cases, similar_cases

    cases = list(Case.objects.published().with_document())
    by_id = {c.id: c for c in cases}
    base = Baselines(cases)
    out: dict = {"cases": len(cases), "counts": {"search": len(queries), "logs": len(logs), "similar": 0}}

    started = time.perf_counter()
    runs, bm25, sem, top, misses = [], [], [], {}, []
    labels = {"first_strong_relevant": 0, "first_strong_not_relevant": 0, "strong": 0, "strong_relevant": 0}
    for item in queries:
        results = search_cases(query=item["q"], limit=10)
        listed = [*results.hits, *results.partial_hits][:10]
        ranked = [h.case.id for h in listed]
        runs.append((ranked, item["relevant"]))
        count_labels(labels, [(h.case.id, h.confidence) for h in listed], item["relevant"])
        bm25.append((base.rank(item["q"]), item["relevant"]))
        sem.append((base.semantic(item["q"]), item["relevant"]))
        top[item["q"]] = ranked[0] if ranked else None
        if not ranked or ranked[0] not in item["relevant"]:
            misses.append((item["q"], item["relevant"], ranked[:3]))
    out["search_ms_per_query"] = round(1000 * (time.perf_counter() - started) / max(len(queries), 1), 1)
    out["search"] = {"incidentlib": figures(runs), "bm25": figures(bm25), "semantic": figures(sem)}
    out["top1"], out["misses"] = top, misses
    out["search_labels"] = labels
    out["search_no_answer"] = unanswered(no_answer)

    log_runs, log_bm25, log_sem, log_misses = [], [], [], []
    no_match = {"logs": 0, "strong": 0, "any_hit": 0}
    log_labels = {
        "first_strong_relevant": 0,
        "first_strong_not_relevant": 0,
        "strong": 0,
        "strong_relevant": 0,
    }
    for item in logs:
        text = (log_dir / item["file"]).read_text(encoding="utf-8")
        hits = read_log(text, limit=10).hits
        if not item["relevant"]:
            no_match["logs"] += 1
            no_match["strong"] += int(any(h.confidence == "strong" for h in hits))
            no_match["any_hit"] += int(bool(hits))
            continue
        ranked = [h.case.id for h in hits]
        log_runs.append((ranked, item["relevant"]))
        count_labels(log_labels, [(h.case.id, h.confidence) for h in hits], item["relevant"])
        log_bm25.append((base.rank(text), item["relevant"]))
        if not set(ranked[:5]) & set(item["relevant"]):
            log_misses.append((item["file"], item["relevant"], ranked[:3], log_bm25[-1][0][:3]))
        log_sem.append((base.semantic(text), item["relevant"]))
    out["logs"] = {"incidentlib": figures(log_runs), "bm25": figures(log_bm25), "semantic": figures(log_sem)}
    out["logs_no_match"] = no_match
    out["log_labels"] = log_labels
    out["log_misses"] = log_misses
    out["counts"]["logs_matching"] = len(log_runs)

    sim, sim_bm25, sim_sem = [], [], []
    for case_id, relevant in similar:
        case = by_id.get(case_id)
        if case is None or not relevant:
            continue
        sim.append(([s.case.id for s in similar_cases(case, limit=3)], relevant))
        sim_bm25.append((base.rank(" ".join(base.texts[case_id]), exclude=case_id, k=3), relevant))
        sim_sem.append((base.semantic_similar(case_id), relevant))
    out["similar"] = {
        "incidentlib": precision_at_3(sim),
        "bm25": precision_at_3(sim_bm25),
        "semantic": precision_at_3(sim_sem),
    }
    out["counts"]["similar"] = len(sim)
    return out


def unanswered(queries) -> dict:
    """How many of `queries` (none of them answered by a case) get a strong hit, and any
    match (strong or possible), among the first 10 listed."""
    from incidents.search import search_cases

    counted = {"queries": 0, "strong": 0, "any_match": 0}
    for query in queries:
        results = search_cases(query=query, limit=10)
        labels = {h.confidence for h in results.hits[:10]}
        counted["queries"] += 1
        counted["strong"] += int("strong" in labels)
        counted["any_match"] += int(bool(labels))
    return counted


def no_answer_queries(folder: Path) -> list[str]:
    """The queries of `folder`/noanswer.json, or none when the set has no such file."""
    path = folder / "noanswer.json"
    return [q["query"] for q in load(path)["queries"]] if path.exists() else []


def _set_measured(folder: Path) -> dict:
    """`measure` over a set in the test set's form (`folder`/queries.json, logs.json + logs/,
    similar.json)."""
    return measure(
        [{"q": q["query"], "relevant": q["relevant"]} for q in load(folder / "queries.json")],
        load(folder / "logs.json"),
        [(s["case"], s["similar"]) for s in load(folder / "similar.json")],
        folder,
        no_answer_queries(folder),
    )


def store_cache_environment(on: bool) -> dict[str, str]:
    """The settings a child measures with. On: the store cache (incidents/store_cache.py:
    case columns, the semantic inverted file, vocabulary and vectors per generation) in a
    cache of the child's own, as servers sharing Redis read; off: every read from the
    database, as `make run` with the default database cache does."""
    if not on:
        return {"STORE_CACHE": "0"}
    return {"STORE_CACHE": "1", "CACHE_URL": "locmemcache://incidentlib-eval"}


def run_backend(
    with_heldout: bool, with_validation: bool = False, *, second_validation: bool = False
) -> dict:
    """Import and measure in a throw-away test database of the configured backend.
    `second_validation`: only the second validation set, over the fixtures plus its own
    foreign cases (apart from the test set's, whose figures stay comparable)."""
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    from incidents.services import import_case_files

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        vocab = [ROOT / "fixtures" / "vocab.json"]
        import_case_files(paths=[ROOT / "fixtures" / "cases"], vocab_paths=vocab)
        if second_validation:
            import_case_files(
                paths=[VALIDATION2 / "foreign" / "cases"],
                vocab_paths=[*vocab, VALIDATION2 / "foreign" / "vocab.json"],
            )
            return {"backend": connection.vendor, "validation2": _set_measured(VALIDATION2)}
        tuning = measure(
            [{"q": q["q"], "relevant": q["relevant"]} for q in load(HERE / "queries.json")["queries"]],
            load(HERE / "logs.json")["logs"],
            list(load(HERE / "similar.json")["similar"].items()),
            HERE,
            no_answer_queries(HERE),
        )
        result = {"backend": connection.vendor, "tuning": tuning}
        if with_validation:
            result["validation"] = _set_measured(VALIDATION)
        if with_heldout:
            import_case_files(
                paths=[HELDOUT / "foreign" / "cases"],
                vocab_paths=[*vocab, HELDOUT / "foreign" / "vocab.json"],
            )
            result["test"] = _set_measured(HELDOUT)
        return result
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def import_all() -> None:
    """The fixtures and, when present, the held-out foreign cases with their vocabulary."""
    from incidents.services import import_case_files

    vocab = [ROOT / "fixtures" / "vocab.json"]
    import_case_files(paths=[ROOT / "fixtures" / "cases"], vocab_paths=vocab)
    if (HELDOUT / "foreign" / "cases").exists():
        foreign_vocab = HELDOUT / "foreign" / "vocab.json"
        import_case_files(paths=[HELDOUT / "foreign" / "cases"], vocab_paths=[*vocab, foreign_vocab])


def agreement_queries() -> list[str]:
    """The held-out queries, or the tuning ones when there is no held-out set."""
    if (HELDOUT / "queries.json").exists():
        return [q["query"] for q in load(HELDOUT / "queries.json")]
    return [q["q"] for q in load(HERE / "queries.json")["queries"]]


def first_cases(queries: list[str]) -> dict[str, str | None]:
    """Query -> the case search_cases puts first (None when nothing is listed)."""
    from incidents.search import search_cases

    out = {}
    for query in queries:
        results = search_cases(query=query, limit=1)
        listed = [*results.hits, *results.partial_hits]
        out[query] = listed[0].case.id if listed else None
    return out


def run_first_cases() -> dict[str, str | None]:
    """`first_cases` of `agreement_queries` in a throw-away database of the configured backend
    (named `<name>_agree_<pid>`, so it never meets a test run's own test database nor that
    of another run comparing the backends at the same time)."""
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    if connection.vendor == "postgresql":
        connection.settings_dict["TEST"] = {**connection.settings_dict.get("TEST", {}), "NAME": None}
        connection.settings_dict["NAME"] = f"{old_name}_agree_{os.getpid()}"
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        import_all()
        return first_cases(agreement_queries())
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def table(name: str, figures_: dict) -> str:
    rows = [
        f"#### {name}: {figures_['cases']} cases, {figures_['search_ms_per_query']} ms per search",
        "",
        "| task | incidentlib | BM25 | semantic only |",
        "|---|---|---|---|",
    ]
    for task, label in (("search", "search"), ("logs", "log matching")):
        count = figures_["counts"]["search" if task == "search" else "logs_matching"]
        for metric in ("mrr@10", "recall@1", "recall@5"):
            f = figures_[task]
            rows.append(
                f"| {label} ({count}) {metric} | {f['incidentlib'][metric]:.3f} | {f['bm25'][metric]:.3f}"
                f" | {f['semantic'][metric]:.3f} |"
            )
    s = figures_["similar"]
    rows.append(
        f"| similar cases ({figures_['counts']['similar']}) precision@3 | {s['incidentlib']:.3f}"
        f" | {s['bm25']:.3f} | {s['semantic']:.3f} |"
    )
    for task, key in (("search", "search_labels"), ("logs", "log_labels")):
        counted = figures_.get(key)
        if counted:
            rows.append(
                f"| {task} labels: first hit strong and relevant / strong, not relevant; strong hits relevant"
                f" | {counted['first_strong_relevant']} / {counted['first_strong_not_relevant']};"
                f" {counted['strong_relevant']} of {counted['strong']} | | |"
            )
    na = figures_.get("search_no_answer") or {}
    if na.get("queries"):
        rows.append(
            f"| search queries no case answers ({na['queries']}): with a strong hit / any match"
            f" | {na['strong']} / {na['any_match']} | | |"
        )
    nm = figures_["logs_no_match"]
    if nm["logs"]:
        rows.append(
            f"| logs with no matching case ({nm['logs']}): with a strong hit / any hit"
            f" | {nm['strong']} / {nm['any_hit']} | | |"
        )
    return "\n".join(rows)


def failures(test: dict) -> list[str]:
    search, bm25 = test["search"]["incidentlib"], test["search"]["bm25"]
    found = []
    if search["mrr@10"] < TARGETS["search_mrr"]:
        found.append(f"search MRR@10 {search['mrr@10']} < {TARGETS['search_mrr']}")
    if 1 - search["mrr@10"] > TARGETS["search_miss_ratio"] * (1 - bm25["mrr@10"]):
        found.append(f"search misses {1 - search['mrr@10']:.3f} > half of BM25's {1 - bm25['mrr@10']:.3f}")
    if search["recall@5"] < TARGETS["search_recall5"]:
        found.append(f"search recall@5 {search['recall@5']} < {TARGETS['search_recall5']}")
    if test["logs"]["incidentlib"]["recall@5"] < TARGETS["logs_recall5"]:
        found.append(f"log recall@5 {test['logs']['incidentlib']['recall@5']} < {TARGETS['logs_recall5']}")
    if test["logs_no_match"]["strong"] > TARGETS["no_match_strong"]:
        found.append(f"{test['logs_no_match']['strong']} logs without a matching case got a strong hit")
    if test["similar"]["incidentlib"] < TARGETS["similar_p3"]:
        found.append(f"similar precision@3 {test['similar']['incidentlib']} < {TARGETS['similar_p3']}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the test set misses its targets")
    parser.add_argument(
        "--misses",
        action="store_true",
        help="list tuning queries missed at rank 1 and logs missed in the top 5",
    )
    parser.add_argument(
        "--tuning-only", action="store_true", help="skip the validation and held-out test sets"
    )
    parser.add_argument(
        "--no-test", action="store_true", help="tuning and validation sets, not the held-out test set"
    )
    parser.add_argument("--postgres", default=os.environ.get("EVAL_POSTGRES_URL", ""), help="PostgreSQL URL")
    parser.add_argument(
        "--store-cache",
        choices=("on", "off"),
        default="on",
        help="read through the store cache as servers with a shared cache do (on, the default) or not",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--second-validation", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--first-cases", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    with_heldout = not (args.tuning_only or args.no_test) and (HELDOUT / "queries.json").exists()
    with_validation = not args.tuning_only and (VALIDATION / "queries.json").exists()
    with_validation2 = not args.tuning_only and (VALIDATION2 / "queries.json").exists()

    if args.first_cases:  # for tests/search/test_backends_agree.py; JSON on stdout
        print(json.dumps(run_first_cases()))
        return 0
    if args.child:  # one backend, in the database of DATABASE_URL; JSON on stdout
        print(
            json.dumps(run_backend(with_heldout, with_validation, second_validation=args.second_validation))
        )
        return 0

    backends = [("sqlite", {k: v for k, v in os.environ.items() if k != "DATABASE_URL"})]
    if args.postgres:
        backends.append(("postgresql", {**os.environ, "DATABASE_URL": args.postgres}))
    for _, env in backends:
        env.update(store_cache_environment(args.store_cache == "on"))
    command = [
        sys.executable,
        __file__,
        "--child",
        *(["--tuning-only"] if args.tuning_only else []),
        *(["--no-test"] if args.no_test else []),
    ]
    # Per backend, one child for the tuning, validation and test sets and one for the second
    # validation set (its own database).
    children = [command, *([[*command, "--second-validation"]] if with_validation2 else [])]
    results: dict[str, dict] = {}
    for name, env in backends:
        for child in children:
            done = subprocess.run(child, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                if name == "postgresql" and name not in results:
                    print(
                        f"PostgreSQL skipped (not reachable?): {done.stderr.strip()[-300:]}", file=sys.stderr
                    )
                    break
                sys.stderr.write(done.stderr)
                return done.returncode
            results.setdefault(name, {}).update(json.loads(done.stdout.strip().splitlines()[-1]))

    failed = []
    for name, result in results.items():
        (HERE / f"results-{name}.json").write_text(
            json.dumps(
                {
                    k: (
                        {kk: vv for kk, vv in v.items() if kk not in ("misses", "log_misses")}
                        if isinstance(v, dict)
                        else v
                    )
                    for k, v in result.items()
                },
                indent=2,
                ensure_ascii=False,
            )
            + "\n"
        )
        print(f"\n### {name}\n")
        print(table("tuning set (fixtures; the ranking was tuned on it)", result["tuning"]))
        if "validation" in result:
            print()
            print(table("validation set (fixtures; never tuned on, read to decide)", result["validation"]))
        if "validation2" in result:
            print()
            print(
                table(
                    "second validation set (fixtures + its foreign cases; never tuned on, read to decide)",
                    result["validation2"],
                )
            )
        if "test" in result:
            print()
            print(table("held-out test set (fixtures + foreign cases; never tuned on)", result["test"]))
            failed += [f"{name}: {f}" for f in failures(result["test"])]
        if args.misses:
            print("\nTuning queries missed at rank 1:")
            for q, relevant, got in result["tuning"]["misses"]:
                print(f"  {q!r}: want {relevant}, got {got}")
            print("\nTuning logs whose case is not in the top 5:")
            for file, relevant, got, bm25_got in result["tuning"]["log_misses"]:
                print(f"  {file}: want {relevant}, got {got} (BM25: {bm25_got})")
    if len(results) == 2:
        for key in ("tuning", "validation", "validation2", "test"):
            if key not in results["sqlite"] or key not in results["postgresql"]:
                continue
            a, b = results["sqlite"][key]["top1"], results["postgresql"][key]["top1"]
            same = sum(1 for q, top in a.items() if b.get(q) == top)
            share = same / max(len(a), 1)
            print(f"\nSame first case on both backends ({key} set): {same}/{len(a)} ({100 * share:.0f}%)")
            if key == "test" and share < TARGETS["backends_agree"]:
                failed.append(f"backends agree on {100 * share:.0f}% of the test queries")
    if failed:
        print(
            "\nTargets missed on the held-out test set:\n" + "\n".join(f"- {f}" for f in failed),
            file=sys.stderr,
        )
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
