"""Helpers for the search tests: import synthetic cases next to the real ones."""

from __future__ import annotations

import pytest

from incidents.services import import_case_files
from tests.conftest import VOCAB_FILE
from tests.factories import synthetic_case, write_cases


@pytest.fixture
def import_synthetic(tmp_path):
    """Import synthetic case documents (inside the test's transaction); returns their ids."""

    def run(*documents: dict) -> list[str]:
        folder = tmp_path / f"batch{len(list(tmp_path.iterdir()))}"
        write_cases(folder, list(documents))
        import_case_files(paths=[folder], vocab_paths=[VOCAB_FILE])
        return [d["id"] for d in documents]

    return run


__all__ = ["import_synthetic", "synthetic_case"]
