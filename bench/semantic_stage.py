"""The semantic stage of a search at scale, measured apart: how many of the exact best cases
its approximate first stage keeps (the passages' sketches, `semantic.Vectors.search_scores`),
and the CPU time of each way.

    DATABASE_URL=sqlite:///copy.sqlite3 .venv/bin/python bench/semantic_stage.py \
        [--depths 1000,500] [--like-real 100000] [--stand-in] [--repeat 5]

Reads every published case's vectors from the database (into a file under a temporary
folder, as a worker holds them). Queries: the bench's search queries and the tuning set's
(eval/queries.json), encoded by the model (its disk cache first), or with `--stand-in` as
bench/stand_in.py encodes a passage (the bench's stored vectors are such stand-ins, which
the model's query vectors barely resemble). For each query and depth: of the exact ranking's
first 10 and 100 cases (`case_scores`, score then id), the share `search_scores` scores
(it scores each exactly, so one it keeps is in its place), without the lexical ranking's
cases, which a search adds.

`--like-real N`: instead of the database's rows, N cases of 5 passages drawn from a normal
distribution with the mean and covariance of the database's rows (normalised, quantised as
stored): the model's geometry (its mean direction, its correlated dimensions, which the
sketch depends on) at a scale the model cannot encode here (about 5 cases a second).
`--covariance FILE.npy`: of those rows instead (e.g. the model's vectors of the fixture
cases' sentences, a flatter spectrum than their 862 passages).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

BENCH_QUERIES = [
    "nccl timeout",
    "training job hangs in allreduce after we added nodes and the watchdog times out",
    "watchdog timeout",
]


def query_texts() -> list[str]:
    tuning = json.loads((ROOT / "eval" / "queries.json").read_text())["queries"]
    return BENCH_QUERIES + [item["q"] for item in tuning]


def stand_in_vector(text: str) -> np.ndarray:
    from stand_in import _word_vector  # type: ignore[import-not-found]

    from incidents.search import encoder

    vector = np.zeros(encoder.DIMENSIONS, dtype=np.float32)
    for word in encoder.prepare(text).lower().split():
        vector += _word_vector(word, encoder.DIMENSIONS)
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def like_real(rows: np.ndarray, cases: int, seed: int = 5):
    """`cases` cases of 5 passages drawn from the normal distribution of `rows` (float32),
    each normalised."""
    from incidents.search import semantic

    rng = np.random.default_rng(seed)
    mean = rows.mean(axis=0)
    covariance = np.cov(rows, rowvar=False)
    factor = np.linalg.cholesky(covariance + 1e-6 * np.eye(len(mean)))
    ids = [f"IL-{n:06d}" for n in range(cases)]
    blocks, scales = [], []
    for start in range(0, cases * 5, 50_000):
        count = min(50_000, cases * 5 - start)
        drawn = (mean + rng.standard_normal((count, len(mean))) @ factor.T).astype(np.float32)
        drawn /= np.linalg.norm(drawn, axis=1, keepdims=True)
        block, scale = semantic.quantised(drawn)
        blocks.append(block)
        scales.append(scale)
    owner = np.repeat(np.arange(cases, dtype=np.int64), 5)
    return semantic.Vectors(ids, owner, np.concatenate(blocks), np.concatenate(scales))


def best(scores, k: int) -> list[str]:
    order = np.lexsort((np.arange(len(scores.array)), -scores.array))[:k]
    return [scores.ids[i] for i in order.tolist()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depths", default="1000")
    parser.add_argument("--like-real", type=int, default=0)
    parser.add_argument("--covariance", default="")
    parser.add_argument("--stand-in", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--queries", type=int, default=0, help="at most this many queries (0: all)")
    arguments = parser.parse_args()

    import django

    django.setup()
    from incidents.search import semantic
    from incidents.search.planning import semantic_text

    folder = Path(tempfile.mkdtemp(prefix="semantic-stage-"))
    started = time.process_time()
    vectors = semantic.load_vectors(folder=folder)
    seconds = time.process_time() - started
    print(f"{len(vectors.ids)} cases, {len(vectors.matrix)} passages read in {seconds:.1f} CPU s")
    if arguments.like_real:
        assert vectors.scale is not None
        real = np.asarray(vectors.matrix).astype(np.float32) * vectors.scale[:, None]
        if arguments.covariance:
            real = np.load(arguments.covariance).astype(np.float32)
        vectors = like_real(real, arguments.like_real)
        print(f"drawn like them: {len(vectors.ids)} cases, {len(vectors.matrix)} passages")
    texts = query_texts()
    if arguments.queries:
        texts = texts[: arguments.queries]
    if arguments.stand_in:
        queries = [stand_in_vector(semantic_text(t)) for t in texts]
    else:
        encoded = [semantic.query_vector(semantic_text(t)) for t in texts]
        queries = [vector for vector in encoded if vector is not None]
    print(f"{len(queries)} queries ({'stand-in' if arguments.stand_in else 'model'} vectors)")

    exact_cpu: list[float] = []
    exact = []
    for query in queries:
        for attempt in range(arguments.repeat):
            started = time.process_time()
            scores = vectors.case_scores(query)
            if attempt:
                exact_cpu.append(time.process_time() - started)
        exact.append((best(scores, 10), best(scores, 100)))
    mean, median = 1000 * float(np.mean(exact_cpu)), 1000 * float(np.median(exact_cpu))
    print(f"exact: {mean:.1f} CPU ms a query (median {median:.1f})")
    for depth in [int(d) for d in arguments.depths.split(",")]:
        semantic.SEARCH_DEPTH = depth
        cpu: list[float] = []
        kept10, kept100, whole100 = [], [], 0
        for query, (top10, top100) in zip(queries, exact, strict=True):
            for attempt in range(arguments.repeat):
                started = time.process_time()
                approximate = vectors.search_scores(query)
                if attempt:
                    cpu.append(time.process_time() - started)
            kept10.append(sum(c in approximate for c in top10) / len(top10))
            kept100.append(sum(c in approximate for c in top100) / len(top100))
            whole100 += best(approximate, 100) == top100
        print(
            f"depth {depth}: {1000 * float(np.mean(cpu)):.1f} CPU ms a query (median "
            f"{1000 * float(np.median(cpu)):.1f}); exact top 10 kept {np.mean(kept10):.4f} "
            f"(min {min(kept10):.2f}), top 100 {np.mean(kept100):.4f} (min {min(kept100):.2f}); "
            f"first 100 identical for {whole100} of {len(queries)} queries"
        )


if __name__ == "__main__":
    main()
