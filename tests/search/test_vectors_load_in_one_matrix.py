"""`semantic.load_vectors` streams the stored rows into one matrix, allocated once for the
published cases the query counts when it reads them all, grown by doubling for a subset
or should rows hold more passages than counted: what it reads must be every published
case's stored vectors (of the subset), in order, whatever the growth steps, quantised as
`semantic.quantised` quantises them all at once (whatever block they were quantised in)."""

from __future__ import annotations

import numpy as np
import pytest

from incidents.models import Case
from incidents.search import encoder, semantic
from incidents.search.models import CaseEmbedding

pytestmark = pytest.mark.django_db


def stored() -> tuple[list[str], list[int], np.ndarray]:
    """The published cases' rows read plainly: ids, each passage's case index, vectors."""
    ids: list[str] = []
    owner: list[int] = []
    blocks: list[np.ndarray] = []
    rows = CaseEmbedding.objects.filter(case__status=Case.Status.PUBLISHED, model=encoder.MODEL_NAME)
    for case_id, count, data in rows.order_by("case_id").values_list("case_id", "passages", "vectors"):
        owner.extend([len(ids)] * count)
        blocks.append(np.frombuffer(bytes(data), dtype=np.float32).reshape(count, encoder.DIMENSIONS))
        ids.append(case_id)
    return ids, owner, np.concatenate(blocks)


def assert_holds(loaded: semantic.Vectors, matrix: np.ndarray) -> None:
    """`loaded` holds `matrix` quantised: int8 rows and their scales, each row within half a
    scale step of the stored float32 row."""
    rows, scales = semantic.quantised(matrix)
    assert loaded.matrix.dtype == np.int8 and loaded.matrix.shape == matrix.shape
    assert loaded.scale is not None and loaded.scale.dtype == np.float32
    assert np.array_equal(loaded.matrix, rows)
    assert np.array_equal(loaded.scale, scales)
    restored = loaded.matrix.astype(np.float32) * loaded.scale[:, None]
    assert np.all(np.abs(restored - matrix) <= loaded.scale[:, None] / 2 + 1e-7)


def test_the_matrix_holds_every_stored_row_in_order_in_one_allocation():
    # A draft is neither read nor counted.
    Case.objects.filter(id="IL-0463").update(status=Case.Status.DRAFT)
    ids, owner, matrix = stored()
    assert "IL-0463" not in ids
    loaded = semantic.load_vectors()
    assert loaded.ids == ids
    assert loaded.owner.tolist() == owner
    assert_holds(loaded, matrix)
    # Allocated once, for the most passages the published cases can have (the pages not
    # written are never touched); a doubling would have left a buffer of another size.
    room = len(semantic.PASSAGES) * Case.objects.published().count()
    assert room > len(matrix)
    assert loaded.matrix.base is not None and loaded.matrix.base.shape == (room, encoder.DIMENSIONS)


@pytest.mark.parametrize("first_rows", [1, 7, 1024, 100_000])
@pytest.mark.parametrize("quantised_rows", [3, 1024])
def test_rows_past_the_counted_room_still_arrive(monkeypatch, first_rows, quantised_rows):
    # No room counted, as if every row held more passages than `PASSAGES`: the matrix grows,
    # with rows waiting to be quantised (every 3 rows, or all at the end) as it does.
    monkeypatch.setattr(semantic, "PASSAGES", ())
    monkeypatch.setattr(semantic, "FIRST_ROWS", first_rows)
    monkeypatch.setattr(semantic, "QUANTISED_ROWS", quantised_rows)
    ids, owner, matrix = stored()
    assert len(matrix) > 7 * 16  # several doublings from 1 and from 7
    loaded = semantic.load_vectors()
    assert loaded.ids == ids
    assert loaded.owner.tolist() == owner
    assert_holds(loaded, matrix)


@pytest.mark.parametrize("first_rows", [1, 1024])
def test_a_subset_is_read_without_counting_the_store(monkeypatch, first_rows):
    monkeypatch.setattr(semantic, "FIRST_ROWS", first_rows)
    wanted = ["IL-0428", "IL-0431", "IL-0463", "IL-0464"]
    ids, owner, matrix = stored()
    rows = [i for i, case_index in enumerate(owner) if ids[case_index] in wanted]
    loaded = semantic.load_vectors(Case.objects.filter(id__in=wanted))
    assert loaded.ids == wanted
    assert_holds(loaded, matrix[rows])
    # Grown from FIRST_ROWS by doubling, not sized for the whole store.
    assert loaded.matrix.base is not None
    allocated = loaded.matrix.base.shape[0]
    if first_rows >= len(rows):
        assert allocated == first_rows
    else:
        assert len(rows) <= allocated < 2 * len(rows)


def test_only_the_cases_asked_for():
    some = Case.objects.filter(id__in=["IL-0463", "IL-0464"])
    loaded = semantic.load_vectors(some)
    assert loaded.ids == ["IL-0463", "IL-0464"]
    rows = CaseEmbedding.objects.filter(case_id__in=["IL-0463", "IL-0464"]).order_by("case_id")
    assert len(loaded.matrix) == sum(rows.values_list("passages", flat=True))


def test_no_published_case_no_rows():
    Case.objects.update(status=Case.Status.DRAFT)
    loaded = semantic.load_vectors()
    assert loaded.ids == [] and loaded.matrix.shape == (0, encoder.DIMENSIONS) and len(loaded.owner) == 0
