"""Similar cases offline: the three parts of the similar-case score as matrices, and
precision@3 of a way of combining them on the tuning and validation judgements.

Every variant of the similar-case score tried on 6 and 7 December (eval/README.md) was
measured this way: the parts of every pair of published cases, unweighted, computed once
from the stored profiles as a rebuild computes them (`hubness.every_case`, then
`similarity._Corpus` and `pair_scores.PairScores`), then a variant is a few array operations
away. At the present weights the first three of each judged case are those `eval/run.py`
measures (tuning 0.793, validation 0.814, second validation 0.870 on 7 December, SQLite).

Run in a database holding the fixtures (`DATABASE_URL=... python eval/similar_parts.py`),
or `--fresh` for a throw-away test database: prints precision@3 of the present weights on
eval/similar.json and eval/validation/similar.json; with `--second-validation`, over the
fixtures plus eval/validation2/foreign (imported after them), on
eval/validation2/similar.json. Never reads eval/heldout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")

Judged = list[tuple[str, list[str]]]  # (case id, the cases judged similar to it)


@dataclass(frozen=True)
class Parts:
    """The unweighted parts of every pair of published cases (N x N float64, rows and
    columns in `ids` order, 0..1): the vocabulary part (weighted Jaccard of the terms), the
    text part (TF-IDF cosine) and the semantic part (hubness-corrected cosine, clipped)."""

    ids: list[str]
    vocabulary: np.ndarray
    text: np.ndarray
    semantic: np.ndarray

    def score(self, weights: Sequence[float] | None = None) -> np.ndarray:
        """The similar-case score of every pair at `weights` (vocabulary, text, semantic;
        by default those of `similarity.py`)."""
        from incidents.search.similarity import SEMANTIC_WEIGHT, TEXT_WEIGHT, VOCABULARY_WEIGHT

        v, t, s = weights or (VOCABULARY_WEIGHT, TEXT_WEIGHT, SEMANTIC_WEIGHT)
        return v * self.vocabulary + t * self.text + s * self.semantic


def parts() -> Parts:
    """The parts of every published case's pairs, as a full rebuild scores them (the
    hubness of every case computed again first). Reads every published profile: O(N²)
    memory and products, for the few hundred cases of the evaluation sets."""
    from incidents.search import hubness, profiles
    from incidents.search.similarity import _Corpus

    published = profiles.published()
    nearest = hubness.every_case(published)
    for profile in published:
        profile.hub = nearest.get(profile.id)
    pairs = _Corpus(published).pairs
    shared = pairs.term_weights.astype(np.float64) @ pairs.term_present.T.astype(np.float64)
    union = pairs.term_total[:, None] + pairs.term_total[None, :] - shared
    vocabulary = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    text = np.minimum(np.asarray((pairs.matrix @ pairs.matrix.T).toarray(), dtype=np.float64), 1.0)
    embeddings = pairs.embeddings.astype(np.float64)
    half_hub = pairs.half_hub.astype(np.float64)
    semantic = embeddings @ embeddings.T - half_hub[:, None] - half_hub[None, :] + float(pairs.centre)
    semantic = np.clip(semantic, 0.0, 1.0)
    semantic[~pairs.embedded] = 0.0
    semantic[:, ~pairs.embedded] = 0.0
    return Parts(list(pairs.ids), vocabulary, text, semantic)


def first_three(ids: list[str], scores: np.ndarray, case_id: str) -> list[str]:
    """The 3 cases scoring best with `case_id` (rounded to 4 decimals as stored, ties by id)."""
    row = ids.index(case_id)
    others = [j for j in range(len(ids)) if j != row]
    return [ids[j] for j in sorted(others, key=lambda j: (-round(float(scores[row, j]), 4), ids[j]))[:3]]


def precision_at_3(ids: list[str], scores: np.ndarray, judged: Judged) -> float:
    """Mean precision@3 over the judged cases that are published, as `eval/run.py` counts it
    (relevant among the first 3, out of min(3, judged similar)), rounded to 3 decimals."""
    values = [
        len(set(first_three(ids, scores, case_id)) & set(similar)) / min(3, len(similar))
        for case_id, similar in judged
        if case_id in ids and similar
    ]
    return round(sum(values) / max(len(values), 1), 3)


def judgements(folder: Path) -> Judged:
    """The similar-case judgements of a set: the tuning set's (`eval/similar.json`, a map)
    or a validation set's (a list of {case, similar})."""
    found = json.loads((folder / "similar.json").read_text(encoding="utf-8"))
    if isinstance(found, dict):
        return list(found["similar"].items())
    return [(item["case"], item["similar"]) for item in found]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="import the fixtures into a test database")
    parser.add_argument(
        "--second-validation",
        action="store_true",
        help="import the second validation set's foreign cases too and measure that set",
    )
    args = parser.parse_args()
    import django

    django.setup()
    if args.fresh:
        from django.db import connection
        from django.test.utils import setup_test_environment

        from incidents.services import import_case_files

        setup_test_environment()
        connection.creation.create_test_db(verbosity=0, autoclobber=True)
        vocab = [HERE.parent / "fixtures" / "vocab.json"]
        import_case_files(paths=[HERE.parent / "fixtures" / "cases"], vocab_paths=vocab)
        if args.second_validation:
            foreign = HERE / "validation2" / "foreign"
            import_case_files(paths=[foreign / "cases"], vocab_paths=[*vocab, foreign / "vocab.json"])
    found = parts()
    scores = found.score()
    sets = [("second validation", HERE / "validation2")] if args.second_validation else []
    sets = sets or [("tuning", HERE), ("validation", HERE / "validation")]
    for name, folder in sets:
        print(f"{name}: precision@3 {precision_at_3(found.ids, scores, judgements(folder)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
