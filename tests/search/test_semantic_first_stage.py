"""A search's semantic scores (`semantic.Vectors.search_scores`): every case's, exactly as
before, in a store of at most `SEARCH_DEPTH` cases; in a larger one, the cases best by their
passages' sketches (`sketch.py`) and the lexical ranking's, each scored exactly from its
rows."""

from __future__ import annotations

import numpy as np
import pytest

from incidents.search import semantic, sketch
from incidents.search.backends import RankedRow
from incidents.search.semantic import Vectors

DIMENSIONS = 384


def _units(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def random_store(cases: int, seed: int, per: int = 3, *, int8: bool = True) -> Vectors:
    rng = np.random.default_rng(seed)
    matrix = _units(rng.standard_normal((cases * per, DIMENSIONS)))
    ids = [f"IL-{n:05d}" for n in range(cases)]
    owner = np.repeat(np.arange(cases, dtype=np.int64), per)
    return Vectors(ids, owner, *semantic.quantised(matrix)) if int8 else Vectors(ids, owner, matrix)


def test_a_projection_keeps_the_directions_the_rows_vary_along(monkeypatch):
    """Rows spread along two directions of eight (plus a little noise): the sketch's two
    coordinates give each row's similarity to a query, less the same amount for every row,
    within a step of each coordinate."""
    rng = np.random.default_rng(8)
    directions = _units(rng.standard_normal((2, 8)))
    along = rng.standard_normal((500, 2)).astype(np.float32) * np.array([3.0, 1.0], dtype=np.float32)
    rows = 0.5 + along @ directions + 0.001 * rng.standard_normal((500, 8)).astype(np.float32)
    projection = sketch.Projection.fitted(rows, dimensions=2)
    assert projection.basis.shape == (2, 8) and projection.mean == pytest.approx(rows.mean(axis=0), abs=1e-5)
    # The basis spans the two directions: each is its own projection back.
    spanned = directions @ projection.basis.T @ projection.basis
    assert spanned == pytest.approx(directions, abs=0.01)
    sketched = projection.rows(rows)
    assert sketched.dtype == np.int8 and np.abs(sketched).max() == sketch.INT8_PEAK
    query = _units(rng.standard_normal((1, 8)))[0]
    approximate = sketch.similarities(sketched, projection.weights(query))
    exact = rows @ query - projection.mean @ query
    bound = float(np.abs(projection.basis @ query) @ projection.step) / 2 + 0.01
    assert np.abs(approximate - exact).max() <= bound
    # Scored a block at a time, the same values as one product.
    monkeypatch.setattr(sketch, "PRODUCT_ROWS", 64)
    assert sketch.similarities(sketched, projection.weights(query)) == pytest.approx(
        sketched.astype(np.float32) @ projection.weights(query), abs=1e-5
    )


def test_a_projection_is_the_same_for_the_same_rows():
    rows = _units(np.random.default_rng(9).standard_normal((300, DIMENSIONS)))
    first, second = sketch.Projection.fitted(rows), sketch.Projection.fitted(rows.copy())
    assert first.basis.shape == (sketch.DIMENSIONS, DIMENSIONS)
    assert np.array_equal(first.basis, second.basis) and np.array_equal(first.step, second.step)
    assert np.array_equal(first.rows(rows), second.rows(rows))
    # Far from the fitted rows, a coordinate is clipped to the int8 range, not wrapped.
    assert np.abs(first.rows(100 * rows[:3]).astype(np.int16)).max() == sketch.INT8_PEAK


@pytest.mark.parametrize("int8", [False, True])
def test_a_store_within_the_depth_is_scored_exactly_as_before(monkeypatch, int8):
    store = random_store(300, seed=1, int8=int8)
    query = _units(np.random.default_rng(2).standard_normal((1, DIMENSIONS)))[0]
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 300)
    exact = store.case_scores(query)
    scores = store.search_scores(query, also=["IL-00007"])
    assert scores.ids == exact.ids and scores.array.tolist() == exact.array.tolist()
    allowed = {f"IL-{n:05d}" for n in range(0, 300, 2)}
    subset = store.search_scores(query, allowed=allowed)
    expected = store.subset_scores(query, allowed)
    assert subset.ids == expected.ids and subset.array.tolist() == expected.array.tolist()
    # Past the depth the first stage chooses the depth's number of cases.
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 299)
    assert len(store.search_scores(query)) == 299


def scale_of(store: Vectors) -> np.ndarray:
    assert store.scale is not None  # int8 rows (`random_store`)
    return store.scale


def planted(cases: int, near: int, seed: int) -> tuple[Vectors, np.ndarray, list[str]]:
    """A store of random cases, `near` of which (spread over it) have passages close to the
    query (cosine about 0.8 to 0.95) among passages of their own."""
    rng = np.random.default_rng(seed)
    query = _units(rng.standard_normal((1, DIMENSIONS)))[0]
    per = 4
    matrix = rng.standard_normal((cases * per, DIMENSIONS)).astype(np.float32)
    chosen = sorted(rng.choice(cases, size=near, replace=False).tolist())
    for rank, case in enumerate(chosen):
        noise = 0.3 + 0.4 * rank / near
        matrix[case * per] = (
            query * np.sqrt(DIMENSIONS)
            + noise * np.sqrt(DIMENSIONS) * _units(rng.standard_normal((1, DIMENSIONS)))[0]
        )
    ids = [f"IL-{n:05d}" for n in range(cases)]
    owner = np.repeat(np.arange(cases, dtype=np.int64), per)
    store = Vectors(ids, owner, *semantic.quantised(_units(matrix)))
    return store, query, [ids[c] for c in chosen]


def test_the_first_stage_keeps_the_cases_nearest_the_query(monkeypatch):
    store, query, near = planted(5000, 20, seed=4)
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 50)
    exact = store.case_scores(query)
    best_exact = sorted(exact, key=lambda c: (-exact[c], c))[:20]
    assert sorted(best_exact) == near  # the planted cases are the exact ranking's first 20
    scores = store.search_scores(query)
    assert len(scores) == 50 and set(near) <= set(scores)
    # Scored exactly: each with its value among all, so the same first 20 in the same order.
    assert sorted(scores, key=lambda c: (-scores[c], c))[:20] == best_exact
    assert [scores[c] for c in best_exact] == pytest.approx([exact[c] for c in best_exact], abs=1e-6)
    assert all(scores[c] <= exact[best_exact[-1]] for c in scores if c not in near)


def test_the_lexical_rankings_cases_keep_their_exact_scores_within_the_allowed(monkeypatch):
    store, query, near = planted(5000, 20, seed=5)
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 50)
    exact = store.case_scores(query)
    far = sorted(exact, key=lambda c: (exact[c], c))[:3]  # the three farthest cases
    scores = store.search_scores(query, also=[*far, "IL-99999"])
    assert set(far) <= set(scores) and "IL-99999" not in scores and len(scores) == 53
    assert [scores[c] for c in far] == pytest.approx([exact[c] for c in far], abs=1e-6)
    # Filtered: only allowed cases, the nearest allowed first; a lexical case not allowed
    # (one the query excludes) is not scored.
    allowed = (set(near[::2]) | {f"IL-{n:05d}" for n in range(0, 5000, 3)} | {far[0]}) - set(far[1:])
    filtered = store.search_scores(query, allowed=allowed, also=far)
    assert set(filtered) <= allowed and far[0] in filtered and far[1] not in filtered
    assert set(near[::2]) <= set(filtered)
    assert filtered[near[0]] == pytest.approx(exact[near[0]], abs=1e-6)


def test_the_sketch_follows_the_rows_in_memory_and_in_a_file(monkeypatch, tmp_path):
    from incidents.search import large_arrays

    store = random_store(200, seed=6)
    monkeypatch.setattr(semantic, "COPY_ROWS", 64)  # copied in several blocks
    monkeypatch.setattr(sketch, "BLOCK_ROWS", 64)  # fitted and sketched in several blocks
    projection, rows = store.sketched_rows()  # computed when first asked for
    assert store.sketched_rows()[1] is rows
    floats = np.asarray(store.matrix).astype(np.float32) * scale_of(store)[:, None]
    assert np.array_equal(rows, projection.rows(floats))
    monkeypatch.setattr(large_arrays, "SHARED_FROM", 0)
    fresh = random_store(1, seed=7)
    fresh.ids = ["IL-00003"]  # a new text of IL-00003
    filed = store.replacing(frozenset({"IL-00003"}), fresh, folder=tmp_path)
    assert isinstance(filed.matrix, large_arrays.FileRows)
    assert filed.sketched is not None
    held_projection, held_rows = filed.sketched
    assert held_projection is projection  # rows added later go on the same directions
    kept = store.owner != 3
    assert np.array_equal(held_rows[filed.owner != 3], rows[kept])
    fresh_floats = np.asarray(fresh.matrix).astype(np.float32) * scale_of(fresh)[:, None]
    assert np.array_equal(held_rows[filed.owner == 3], projection.rows(fresh_floats))
    # Read from the file, a store's sketch is the one of its rows in memory.
    nothing = Vectors([], np.zeros(0, dtype=np.int64), floats[:0])
    from_file = store.replacing(frozenset(), nothing, folder=tmp_path / "copy")
    assert isinstance(from_file.matrix, large_arrays.FileRows)
    recomputed = Vectors(from_file.ids, from_file.owner, from_file.matrix, from_file.scale)
    assert np.array_equal(recomputed.sketched_rows()[1], rows)


def test_a_search_gives_every_lexical_case_its_exact_semantic_score(monkeypatch, db, store_cache_on):
    """In a store past the depth (the fixture library with a depth of 10), the scores fused
    are the first stage's cases and every case of the lexical ranking, each with the value
    the exact product gives it."""
    from incidents.search import fusion, ranking, search_cases

    seen: list[tuple[list[RankedRow], semantic.CaseScores]] = []
    real = fusion.fuse

    def spy(lexical, scores, **options):
        seen.append((lexical, scores))
        return real(lexical, scores, **options)

    monkeypatch.setattr(ranking, "fuse", spy)
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 10)
    results = search_cases(query="nccl watchdog timeout", limit=20)
    assert results.hits
    [(lexical, scores)] = seen
    vectors = semantic.process_vectors()
    query = semantic.query_vector("nccl watchdog timeout")
    assert query is not None
    exact = vectors.case_scores(query)
    assert len(lexical) > 10
    assert {row.case_id for row in lexical} <= set(scores)
    assert len(scores) < len(exact)
    for case_id in scores:
        assert scores[case_id] == pytest.approx(exact[case_id], abs=1e-6)


def test_vectors_read_for_one_search_are_scored_exactly_without_a_sketch(monkeypatch, db, settings):
    """With the store cache off each search reads its vectors afresh: a sketch built for it
    would cost more than the exact product it saves (about 2 CPU s at 100,000 cases), so every
    case is scored exactly, past the depth too, filtered or not."""
    from incidents.search import fusion, ranking, search_cases
    from incidents.selectors import CaseFilters

    settings.STORE_CACHE = False
    seen: list[semantic.CaseScores] = []
    real = fusion.fuse

    def spy(lexical, scores, **options):
        seen.append(scores)
        return real(lexical, scores, **options)

    def no_sketch(self):
        raise AssertionError("a sketch was built for vectors read for one search")

    monkeypatch.setattr(ranking, "fuse", spy)
    monkeypatch.setattr(semantic.Vectors, "sketched_rows", no_sketch)
    monkeypatch.setattr(semantic, "SEARCH_DEPTH", 10)
    assert search_cases(query="nccl watchdog timeout", limit=20).hits
    hangs = CaseFilters(include={"topic": ("training-hang",)})
    assert search_cases(query="nccl watchdog timeout", filters=hangs, limit=20).hits
    everything, filtered = seen
    query = semantic.query_vector("nccl watchdog timeout")
    assert query is not None
    exact = semantic.load_vectors().case_scores(query)
    assert len(exact) > 100 and list(everything) == list(exact)
    assert 10 < len(filtered) < len(exact)
    for case_id in filtered:
        assert filtered[case_id] == pytest.approx(exact[case_id], abs=1e-6)
