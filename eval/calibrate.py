"""Choose the fusion weights and confidence thresholds of `incidents/search/fusion.py`
on the TUNING set only (eval/queries.json; never eval/heldout/).

Run inside a database that holds the fixtures (`DATABASE_URL=... python eval/calibrate.py`,
or `--fresh` for a throw-away test database). Fits the relevance model (logistic regression
over `fusion.features`), prints its weights to paste into fusion.py, its leave-one-query-
out MRR@10, and the precision and recall of hits above each probability threshold.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")


def signals(queries: list[dict]) -> list[tuple[dict, list, dict[str, float] | None]]:
    """(query, lexical rows, semantic scores) of each tuning query."""
    from incidents.models import Case
    from incidents.search.backends import get_backend
    from incidents.search.planning import interpret, semantic_text
    from incidents.search.ranking import lexical_rows
    from incidents.search.semantic import load_vectors, query_vector

    backend = get_backend()
    vectors = load_vectors()
    published = Case.objects.published()
    out = []
    for item in queries:
        parsed = interpret(item["q"])
        rows = lexical_rows(backend, parsed, published) if parsed.groups else []
        vector = query_vector(semantic_text(item["q"]))
        out.append((item, rows, vectors.case_scores(vector) if vector is not None else None))
    return out


def mrr(runs, fuse) -> float:
    from eval.run import reciprocal_rank

    total = 0.0
    for item, rows, semantic in runs:
        ranked = [c.case_id for c in fuse(rows, semantic)]
        total += reciprocal_rank(ranked, item["relevant"])
    return round(total / max(len(runs), 1), 4)


def examples(runs) -> list[tuple[dict, list[str], np.ndarray, np.ndarray]]:
    """Per query: candidate ids, their feature rows and whether each is relevant."""
    from incidents.search import fusion

    out = []
    for item, rows, semantic in runs:
        lexical_rank = {row.case_id: rank for rank, row in enumerate(rows, start=1)}
        share = {row.case_id: row.share for row in rows}
        literal = {row.case_id: row.literal_share for row in rows}
        semantic = semantic or {}
        ordered = sorted(semantic, key=lambda c: (-semantic[c], c))
        semantic_rank = {c: r for r, c in enumerate(ordered, start=1)}
        top = semantic[ordered[0]] if ordered else 0.0
        ids = list(lexical_rank) + [
            c for c in ordered if c not in lexical_rank and semantic[c] >= fusion.SEMANTIC_CANDIDATE
        ]
        x = np.array(
            [
                fusion.features(
                    lexical_rank.get(c),
                    semantic_rank.get(c),
                    share.get(c, 0.0),
                    semantic.get(c, 0.0),
                    top,
                    literal.get(c, 0.0),
                )
                for c in ids
            ]
        )
        out.append((item, ids, x, np.array([c in item["relevant"] for c in ids], dtype=float)))
    return out


L2 = float(os.environ.get("CALIBRATE_L2", "10"))


def fit(data, l2: float = L2) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression (Newton steps) on standardised features; returns
    weights and bias on the raw features."""
    x = np.concatenate([d[2] for d in data])
    y = np.concatenate([d[3] for d in data])
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    ridge = np.eye(len(w)) * l2
    ridge[-1, -1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ w))
        gradient = z.T @ (p - y) + ridge @ w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + ridge
        w -= np.linalg.solve(hessian, gradient)
    weights = w[:-1] / sd
    return weights, float(w[-1] - (w[:-1] * mu / sd).sum())


def reciprocal(ids, p, relevant) -> float:
    for position, index in enumerate(np.argsort(-p, kind="stable")[:10], start=1):
        if ids[index] in relevant:
            return 1.0 / position
    return 0.0


def predict(weights, bias, x) -> np.ndarray:
    return 1 / (1 + np.exp(-(x @ weights + bias)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="import the fixtures into a test database")
    args = parser.parse_args()
    import django

    django.setup()
    from django.db import connection

    from incidents.search import fusion

    if args.fresh:
        from django.test.utils import setup_test_environment

        from incidents.services import import_case_files

        setup_test_environment()
        connection.creation.create_test_db(verbosity=0, autoclobber=True)
        root = HERE.parent
        import_case_files(paths=[root / "fixtures" / "cases"], vocab_paths=[root / "fixtures" / "vocab.json"])
    queries = json.loads((HERE / "queries.json").read_text())["queries"]
    runs = signals(queries)

    print("lexical only MRR@10:", mrr([(i, r, None) for i, r, _ in runs], fusion.fuse))
    print("semantic only MRR@10:", mrr([(i, [], s) for i, _, s in runs], fusion.fuse))
    data = examples(runs)
    held = [
        reciprocal(d[1], predict(*fit(data[:i] + data[i + 1 :]), d[2]), d[0]["relevant"])
        for i, d in enumerate(data)
    ]
    print("fused, leave-one-query-out MRR@10:", round(sum(held) / len(held), 4))
    weights, bias = fit(data)
    print("WEIGHTS = (" + ", ".join(f"{w:.4g}" for w in weights) + ")")
    print(f"BIAS = {bias:.4g}")
    p = np.concatenate([predict(weights, bias, d[2]) for d in data])
    y = np.concatenate([d[3] for d in data])
    for threshold in (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        chosen = p >= threshold
        print(
            f"p >= {threshold}: {int(chosen.sum())} hits, precision {y[chosen].mean():.2f},"
            f" recall {y[chosen].sum() / y.sum():.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
