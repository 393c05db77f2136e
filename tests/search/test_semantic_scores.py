"""A case's semantic score is its best passage plus a quarter of its passages' mean, kept
as one array (`CaseScores`) that reads as a mapping, cuts to allowed cases and lists the
cases above a threshold best first."""

from __future__ import annotations

import numpy as np
import pytest

from incidents.search.semantic import MEAN_SHARE, Vectors


def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


@pytest.fixture
def vectors() -> Vectors:
    # IL-1 has two passages, IL-2 one, IL-3 three (the dimension is the rows' own here).
    rows = [
        _unit(1, 0, 0),
        _unit(0, 1, 0),
        _unit(1, 1, 0),
        _unit(0, 0, 1),
        _unit(1, 0, 1),
        _unit(-1, 0, 0),
    ]
    return Vectors(["IL-1", "IL-2", "IL-3"], np.array([0, 0, 1, 2, 2, 2]), np.stack(rows))


def test_each_case_scores_its_best_passage_plus_a_share_of_its_mean(vectors):
    query = _unit(1, 0, 0)
    scores = vectors.case_scores(query)
    half = 1 / np.sqrt(2)
    expected = {
        "IL-1": 1.0 + MEAN_SHARE * (1.0 + 0.0) / 2,
        "IL-2": half + MEAN_SHARE * half,
        "IL-3": half + MEAN_SHARE * (0.0 + half - 1.0) / 3,
    }
    assert set(scores) == set(expected) and len(scores) == 3
    for case_id, value in expected.items():
        assert scores[case_id] == pytest.approx(value, abs=1e-6), case_id
    assert dict(scores.items()) == {c: scores[c] for c in expected}
    assert "IL-4" not in scores and scores.get("IL-4") is None


def test_cases_above_a_threshold_come_best_first_and_cut_to_the_allowed(vectors):
    scores = vectors.case_scores(_unit(1, 0, 0))
    assert scores.above(0.8) == ["IL-1", "IL-2"]
    assert scores.above(0.5) == ["IL-1", "IL-2", "IL-3"]
    assert scores.above(2.0) == []
    allowed = scores.restricted({"IL-3", "IL-2", "IL-9"})
    assert list(allowed) == ["IL-2", "IL-3"]
    assert allowed["IL-3"] == pytest.approx(scores["IL-3"])
    assert "IL-1" not in allowed and allowed.above(0.8) == ["IL-2"]


def test_no_vectors_no_scores():
    empty = Vectors([], np.zeros(0, dtype=np.int64), np.zeros((0, 3), dtype=np.float32))
    assert dict(empty.case_scores(_unit(1, 0, 0))) == {}


def test_a_case_without_passages_scores_minus_one():
    blank = Vectors(["IL-1"], np.zeros(0, dtype=np.int64), np.zeros((0, 3), dtype=np.float32))
    assert dict(blank.case_scores(_unit(1, 0, 0))) == {"IL-1": -1.0}
    mixed = Vectors(["IL-1", "IL-2"], np.array([1]), np.stack([_unit(1, 0, 0)]))
    scores = mixed.case_scores(_unit(1, 0, 0))
    assert scores["IL-1"] == -1.0 and scores["IL-2"] == pytest.approx(1.0 + MEAN_SHARE)


def test_the_scores_of_a_few_cases_are_read_from_their_rows_alone(vectors):
    """`scores_of` (log matching's candidates) gives `case_scores`' values, case by case,
    from the rows of the cases asked for; an unknown id is left out, a case without
    passages scores -1."""
    query = _unit(1, 0.5, 0.2)
    everything = vectors.case_scores(query)
    assert vectors.scores_of(query, ["IL-3", "IL-9", "IL-1", "IL-3"]) == pytest.approx(
        {"IL-3": everything["IL-3"], "IL-1": everything["IL-1"]}, abs=1e-6
    )
    assert list(vectors.scores_of(query, ["IL-3", "IL-1"])) == ["IL-3", "IL-1"]
    assert vectors.scores_of(query, []) == {}
    # IL-2 lost its only row: a case between two others with none of its own.
    gap = Vectors(["IL-1", "IL-2", "IL-3"], np.array([0, 0, 2, 2, 2]), vectors.matrix[[0, 1, 3, 4, 5]])
    assert gap.scores_of(query, ["IL-2", "IL-3"]) == pytest.approx(
        {"IL-2": -1.0, "IL-3": everything["IL-3"]}, abs=1e-6
    )
    # ... and asked last, after a case whose rows must all count.
    for asked in (["IL-3", "IL-2"], ["IL-1", "IL-2"]):
        expected = {c: -1.0 if c == "IL-2" else everything[c] for c in asked}
        assert gap.scores_of(query, asked) == pytest.approx(expected, abs=1e-6), asked


def test_a_last_case_without_passages_leaves_the_others_whole(vectors):
    query = _unit(1, 0.5, 0.2)
    # IL-2 holds two rows and IL-3 none: the store's last case has no range of its own.
    rows = vectors.matrix[[0, 3, 4]]
    tail = Vectors(["IL-1", "IL-2", "IL-3"], np.array([0, 1, 1]), rows)
    whole = Vectors(["IL-1", "IL-2"], np.array([0, 1, 1]), rows).case_scores(query)
    scores = tail.case_scores(query)
    assert scores["IL-3"] == -1.0
    assert scores["IL-1"] == pytest.approx(whole["IL-1"], abs=1e-6)
    assert scores["IL-2"] == pytest.approx(whole["IL-2"], abs=1e-6)
    assert tail.scores_of(query, ["IL-2", "IL-3"]) == pytest.approx({"IL-2": whole["IL-2"], "IL-3": -1.0})


def test_the_rows_are_scored_a_block_at_a_time_with_the_same_values(vectors, monkeypatch):
    from incidents.search import semantic

    monkeypatch.setattr(semantic, "GATHER_ROWS", 2)  # six rows: three blocks
    query = _unit(0.3, 1, 0.4)
    everything = vectors.case_scores(query)
    assert vectors.scores_of(query, ["IL-3", "IL-1", "IL-2"]) == pytest.approx(
        {c: everything[c] for c in ("IL-3", "IL-1", "IL-2")}, abs=1e-6
    )


def test_a_filtered_search_scores_the_allowed_cases_alone_with_the_same_values(vectors, monkeypatch):
    """`subset_scores` is `case_scores(...).restricted(...)`; in a large store, for a small
    share of it, only the allowed cases' rows are scored."""
    from incidents.search import semantic

    query = _unit(0.2, 1, 0.7)
    allowed = {"IL-3", "IL-1", "IL-9"}
    expected = vectors.case_scores(query).restricted(allowed)
    # This store is small: every row is scored, and the values are those of the full product.
    small = vectors.subset_scores(query, allowed)
    assert list(small) == list(expected) == ["IL-1", "IL-3"]
    assert small.array.tolist() == expected.array.tolist()

    scored_rows: list[int] = []
    gathered = Vectors._gathered

    def counting(self, query, at):
        scored_rows.append(len(at))
        return gathered(self, query, at)

    monkeypatch.setattr(Vectors, "_gathered", counting)
    monkeypatch.setattr(semantic, "SUBSET_FROM", 3)
    monkeypatch.setattr(semantic, "SUBSET_SHARE", 1.0)  # up to as many ids as cases
    subset = vectors.subset_scores(query, allowed)
    assert scored_rows == [2]  # IL-1 and IL-3 only
    assert list(subset) == ["IL-1", "IL-3"]
    assert subset.array.tolist() == pytest.approx(expected.array.tolist(), abs=1e-6)
    assert subset.above(-1.0) == expected.above(-1.0)
    # Beyond that share every row is scored again.
    monkeypatch.setattr(semantic, "SUBSET_SHARE", 0.5)
    assert list(vectors.subset_scores(query, {"IL-1", "IL-2"})) == ["IL-1", "IL-2"]
    assert scored_rows == [2]
    assert dict(vectors.subset_scores(query, {"IL-9"})) == {}
    assert scored_rows == [2]  # nothing allowed has rows: nothing scored
    # A case without passages scores -1 as in the full product.
    mixed = Vectors(["IL-1", "IL-2", "IL-3"], np.array([0, 0, 2]), vectors.matrix[[0, 1, 3]])
    assert dict(mixed.subset_scores(query, {"IL-2"})) == {"IL-2": -1.0}


@pytest.mark.parametrize("int8", [False, True])
def test_scored_alone_a_case_has_the_value_it_has_among_all(monkeypatch, int8):
    """Gathered rows are scored with the same BLAS kernel as in the product over every row:
    two cases with the same passages tie exactly in a filtered search too, and go by id;
    the same for the int8 rows search holds (`semantic.quantised`)."""
    from incidents.search import semantic

    rng = np.random.default_rng(7)
    cases, per = 2000, 3
    matrix = rng.standard_normal((cases * per, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[200 * per : 201 * per] = matrix[100 * per : 101 * per]  # IL-0200 repeats IL-0100
    ids = [f"IL-{n:04d}" for n in range(cases)]
    store = Vectors(ids, np.repeat(np.arange(cases), per), matrix)
    if int8:
        store = Vectors(ids, store.owner, *semantic.quantised(matrix))
    monkeypatch.setattr(semantic, "SUBSET_FROM", 0)
    for seed in range(20):
        query = rng.standard_normal(384).astype(np.float32)
        query /= np.linalg.norm(query)
        allowed = {"IL-0100", "IL-0200", *rng.choice(ids[:-10], size=seed * 7, replace=False)}
        subset = store.subset_scores(query, allowed)
        everything = store.case_scores(query)
        assert subset["IL-0100"] == subset["IL-0200"], seed
        assert [subset[c] for c in subset] == [everything[c] for c in subset], seed
        assert subset.above(-2.0).index("IL-0100") < subset.above(-2.0).index("IL-0200")


def test_int8_rows_score_within_a_few_thousandths_of_float32():
    """Search holds the passages as int8 rows with a scale each (`semantic.quantised`): a
    case's score and its mean vector stay close to those of the float32 rows, and a zero
    row stays zero."""
    from incidents.search import semantic

    rng = np.random.default_rng(11)
    cases, per = 1000, 5
    matrix = rng.standard_normal((cases * per, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[17] = 0.0
    ids = [f"IL-{n:04d}" for n in range(cases)]
    owner = np.repeat(np.arange(cases), per)
    exact = Vectors(ids, owner, matrix)
    rows, scales = semantic.quantised(matrix)
    assert rows.dtype == np.int8 and np.abs(rows).max() == semantic.INT8_PEAK
    assert not rows[17].any() and scales[17] == 1.0
    int8 = Vectors(ids, owner, rows, scales)
    for _ in range(10):
        query = matrix[rng.integers(len(matrix))] + 0.3 * rng.standard_normal(384).astype(np.float32)
        query /= np.linalg.norm(query)
        difference = np.abs(int8.case_scores(query).array - exact.case_scores(query).array)
        assert 0 < difference.max() < 0.004
    means = np.sum(int8.case_matrix() * exact.case_matrix(), axis=1)
    assert means.min() > 0.9999


def test_a_row_too_small_for_a_scale_quantises_to_zero_without_warnings():
    import warnings

    from incidents.search import semantic

    tiny = np.full((2, 384), 1e-44, dtype=np.float32)  # its peak / 127 underflows to 0
    tiny[1] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows, scales = semantic.quantised(tiny)
    assert not rows.any() and scales.tolist() == [1.0, 1.0]
