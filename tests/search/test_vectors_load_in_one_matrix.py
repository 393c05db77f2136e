"""`semantic.load_vectors` streams the stored rows into one growing matrix: what it reads
must be every published case's stored vectors, in order, whatever the growth steps."""

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


@pytest.mark.parametrize("first_rows", [1, 7, 1024, 100_000])
def test_the_matrix_holds_every_stored_row_in_order(monkeypatch, first_rows):
    monkeypatch.setattr(semantic, "FIRST_ROWS", first_rows)
    ids, owner, matrix = stored()
    assert len(matrix) > 7 * 16  # several doublings from 1 and from 7
    loaded = semantic.load_vectors()
    assert loaded.ids == ids
    assert loaded.owner.tolist() == owner
    assert loaded.matrix.dtype == np.float32 and loaded.matrix.shape == matrix.shape
    assert np.array_equal(loaded.matrix, matrix)


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
