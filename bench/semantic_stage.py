"""The semantic stage of a search at scale, measured apart: how many of the exact best cases
its approximate first stage keeps (the passages' sketches scored in full, or the lists of the
inverted file, `semantic.Vectors.search_scores`), and the CPU time of each way.

    DATABASE_URL=sqlite:///copy.sqlite3 .venv/bin/python bench/semantic_stage.py \
        [--depths 1000,500] [--probes 24,32] [--like-real 100000 | --clustered 100000] \
        [--stand-in] [--repeat 5] [--validation]

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
cases' sentences, a flatter spectrum than their 862 passages). `--clustered N`: N cases
each a copy of one of the database's cases (chosen at random) with every passage moved by
normal noise of the rows' covariance (a cosine of about 0.77 to its source): a library
where failures recur, the structure the inverted file's lists follow and a normal
distribution lacks. `--validation`: the validation sets' queries too (eval/validation,
eval/validation2). `--depths` are the sketch pass's depths (a store of fewer than
`semantic.INVERTED_FROM` cases), `--probes` the inverted file's (from that size).
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

# A case without a lexical match is a candidate of fusion from this semantic score on
# (`fusion.SEMANTIC_CANDIDATE`, not imported here: Django is set up in `main`).
SEMANTIC_CANDIDATE = 0.3

BENCH_QUERIES = [
    "nccl timeout",
    "training job hangs in allreduce after we added nodes and the watchdog times out",
    "watchdog timeout",
]


def query_texts(validation: bool = False) -> list[str]:
    tuning = json.loads((ROOT / "eval" / "queries.json").read_text())["queries"]
    texts = BENCH_QUERIES + [item["q"] for item in tuning]
    if validation:
        for folder in ("validation", "validation2"):
            items = json.loads((ROOT / "eval" / folder / "queries.json").read_text())
            texts += [item["query"] for item in items]
    return texts


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


def clustered(vectors, cases: int, seed: int = 6):
    """`cases` cases, each a copy of one of `vectors`' cases (at random) with every passage
    moved by normal noise of their rows' covariance (times 0.6 to 1.4, a level per case),
    normalised, quantised as stored."""
    from incidents.search import semantic

    rows = np.asarray(vectors.matrix).astype(np.float32) * vectors.scale[:, None]
    starts, counts = vectors._starts
    rng = np.random.default_rng(seed)
    factor = np.linalg.cholesky(np.cov(rows, rowvar=False) + 1e-6 * np.eye(rows.shape[1]))
    source = rng.integers(0, len(vectors.ids), cases)
    per = counts[source]
    owner = np.repeat(np.arange(cases, dtype=np.int64), per)
    copied = np.repeat(starts[source] - semantic._firsts(per), per) + np.arange(int(per.sum()))
    level = np.repeat(rng.uniform(0.6, 1.4, cases), per).astype(np.float32)
    blocks, scales = [], []
    for start in range(0, len(copied), 50_000):
        at = copied[start : start + 50_000]
        noise = (rng.standard_normal((len(at), rows.shape[1])) @ factor.T).astype(np.float32)
        drawn = rows[at] + level[start : start + 50_000, None] * noise
        drawn /= np.linalg.norm(drawn, axis=1, keepdims=True)
        block, scale = semantic.quantised(drawn)
        blocks.append(block)
        scales.append(scale)
    ids = [f"IL-{n:06d}" for n in range(cases)]
    return semantic.Vectors(ids, owner, np.concatenate(blocks), np.concatenate(scales))


def best(scores, k: int) -> list[str]:
    order = np.lexsort((np.arange(len(scores.array)), -scores.array))[:k]
    return [scores.ids[i] for i in order.tolist()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depths", default="1000")
    parser.add_argument("--probes", default="")
    parser.add_argument("--like-real", type=int, default=0)
    parser.add_argument("--clustered", type=int, default=0)
    parser.add_argument("--validation", action="store_true")
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
    if arguments.clustered:
        vectors = clustered(vectors, arguments.clustered)
        print(f"drawn about them: {len(vectors.ids)} cases, {len(vectors.matrix)} passages")
    if arguments.probes and len(vectors.ids) >= semantic.INVERTED_FROM:
        started = time.process_time()
        vectors.sketched_rows()
        sketched = time.process_time() - started
        started = time.process_time()
        vectors.inverted_file()
        listed = time.process_time() - started
        print(f"sketch built in {sketched:.2f} CPU s, inverted file in {listed:.2f} CPU s")
    texts = query_texts(arguments.validation)
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
        top100 = best(scores, 100)
        candidates = [c for c in top100 if scores[c] >= SEMANTIC_CANDIDATE]
        exact.append((best(scores, 10), top100, candidates))
    mean, median = 1000 * float(np.mean(exact_cpu)), 1000 * float(np.median(exact_cpu))
    print(f"exact: {mean:.1f} CPU ms a query (median {median:.1f})")
    from incidents.search import inverted

    large = len(vectors.ids) >= semantic.INVERTED_FROM
    ways = [("probes", int(p)) for p in arguments.probes.split(",") if p and large]
    ways += [("depth", int(d)) for d in arguments.depths.split(",") if d]
    for way, value in ways:
        if way == "probes":
            inverted.PROBES = value
        else:
            semantic.SEARCH_DEPTH = value
            semantic.INVERTED_FROM = len(vectors.ids) + 1  # the sketch pass over every passage
        cpu: list[float] = []
        kept10, kept100, whole100 = [], [], 0
        found, wanted = 0, 0
        for query, (top10, top100, candidates) in zip(queries, exact, strict=True):
            for attempt in range(arguments.repeat):
                started = time.process_time()
                approximate = vectors.search_scores(query)
                if attempt:
                    cpu.append(time.process_time() - started)
            kept10.append(sum(c in approximate for c in top10) / len(top10))
            kept100.append(sum(c in approximate for c in top100) / len(top100))
            whole100 += best(approximate, 100) == top100
            found += sum(c in approximate for c in candidates)
            wanted += len(candidates)
        print(
            f"{way} {value}: {1000 * float(np.mean(cpu)):.1f} CPU ms a query (median "
            f"{1000 * float(np.median(cpu)):.1f}); exact top 10 kept {np.mean(kept10):.4f} "
            f"(min {min(kept10):.2f}), top 100 {np.mean(kept100):.4f} (min {min(kept100):.2f}); "
            f"first 100 identical for {whole100} of {len(queries)} queries; of the first 100 "
            f"scoring at least {SEMANTIC_CANDIDATE} (fusion's semantic candidates) {found} of {wanted} kept"
        )


if __name__ == "__main__":
    main()
