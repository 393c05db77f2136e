"""The passage vectors a worker keeps are filed to be shared (`large_arrays.Rows`): written to
a file named by the SHA-256 of its bytes and read from it where needed (`FileRows`), so that
workers holding the same rows read one file (its pages held once, in the page cache) instead
of each holding a copy, and none of its pages count in a worker's resident set (it is not
mapped). What is read must be the rows `load_vectors` reads; a file nobody reads any more is
removed; a build that fails leaves nothing behind."""

from __future__ import annotations

import fcntl
import gc
import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from incidents.models import Case
from incidents.search import large_arrays, semantic

pytestmark = pytest.mark.django_db


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(large_arrays, "SHARED_FROM", 0)
    return tmp_path / "vectors"


def readers(path: Path) -> int:
    """How many open descriptors of the file at `path` this process holds (by inode: one
    opened through another name of the file, since removed, counts too)."""
    inode = os.stat(path).st_ino
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.stat(f"/proc/self/fd/{fd}").st_ino == inode
        except OSError:
            pass  # the descriptor listdir itself used, closed since
    return count


def mappings(path: Path) -> int:
    """How many mappings of the file at `path` this process holds (by inode)."""
    inode = str(os.stat(path).st_ino)
    return sum(1 for line in Path("/proc/self/maps").read_text().splitlines() if line.split()[4:5] == [inode])


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_two_workers_reading_the_same_rows_read_one_file(folder):
    in_memory = semantic.load_vectors()
    first = semantic.load_vectors(folder=folder)
    second = semantic.load_vectors(folder=folder)  # as the other worker reads them
    [name] = files(folder)  # no temporary file left, one file for both
    assert in_memory.scale is not None
    digest = hashlib.sha256(np.ascontiguousarray(in_memory.matrix).tobytes()).hexdigest()
    assert name == f"rows-{digest}.bin"
    assert readers(folder / name) == 2
    for loaded in (first, second):
        assert loaded.ids == in_memory.ids
        assert np.array_equal(loaded.owner, in_memory.owner)
        assert loaded.scale is not None and np.array_equal(loaded.scale, in_memory.scale)
        assert isinstance(loaded.matrix, large_arrays.FileRows)
        assert loaded.matrix.dtype == np.int8 and np.array_equal(loaded.matrix, in_memory.matrix)
        assert np.array_equal(loaded.sketched_rows()[1], in_memory.sketched_rows()[1])
    query = in_memory.matrix[0].astype(np.float32) * in_memory.scale[0]
    query /= np.linalg.norm(query)
    assert np.array_equal(first.case_scores(query).array, in_memory.case_scores(query).array)
    some = ["IL-0463", "IL-0428", "IL-0470"]
    assert first.scores_of(query, some) == in_memory.scores_of(query, some)
    mean, expected = first.case_vector("IL-0444"), in_memory.case_vector("IL-0444")
    assert mean is not None and expected is not None and np.array_equal(mean, expected)
    assert mappings(folder / name) == 0  # read, never mapped: no page of it is resident here


def test_rows_read_from_a_file_are_those_of_the_array(folder):
    in_memory = semantic.load_vectors()
    rows = semantic.load_vectors(folder=folder).matrix
    assert isinstance(rows, large_arrays.FileRows)
    matrix = np.asarray(in_memory.matrix)
    assert rows.shape == matrix.shape and len(rows) == len(matrix)
    assert np.array_equal(rows[5:17], matrix[5:17]) and np.array_equal(rows[-3:], matrix[-3:])
    assert np.array_equal(rows[len(rows) - 2 :], matrix[-2:]) and rows[10:10].shape == (0, matrix.shape[1])
    assert np.array_equal(rows[::50], matrix[::50])
    assert np.array_equal(rows[7], matrix[7]) and np.array_equal(rows[-1], matrix[-1])
    taken = np.array([9, 3, 4, 5, 5, len(matrix) - 1, 0])  # runs, repeats, any order
    assert np.array_equal(rows[taken], matrix[taken])
    mask = in_memory.owner == 3
    assert np.array_equal(rows[mask], matrix[mask])
    with pytest.raises(IndexError):
        rows.take(np.array([len(matrix)]))
    with pytest.raises(TypeError, match="taken whole"):
        rows[3, 4]  # an element, as an array would give: refused, not rows 3 and 4


def test_a_file_is_removed_once_nobody_maps_it(folder):
    held = semantic.load_vectors(folder=folder)
    [old] = files(folder)
    nothing = semantic.load_vectors(Case.objects.none())
    changed = held.replacing(frozenset({"IL-0429"}), nothing, folder=folder)
    # IL-0429 dropped: other rows, another file; the old one is still mapped by `held`.
    assert "IL-0429" not in changed.ids
    assert len(files(folder)) == 2 and old in files(folder)
    del held
    gc.collect()
    again = semantic.load_vectors(Case.objects.exclude(id="IL-0429"), folder=folder)
    # The next file filed sweeps the one nobody maps; the mapped one stays, and the same
    # rows again are the same file.
    [name] = files(folder)
    assert name != old
    assert readers(folder / name) == 2
    assert np.array_equal(again.matrix, changed.matrix)


def test_a_file_locked_by_another_process_is_kept(folder):
    semantic.load_vectors(folder=folder)
    gc.collect()
    [name] = files(folder)
    # Another worker still reads it: it holds the file's shared lock.
    other = os.open(folder / name, os.O_RDONLY)
    try:
        fcntl.flock(other, fcntl.LOCK_SH)
        semantic.load_vectors(Case.objects.filter(id="IL-0428"), folder=folder)
        assert name in files(folder)
    finally:
        os.close(other)
    semantic.load_vectors(Case.objects.filter(id="IL-0429"), folder=folder)
    assert name not in files(folder)


def test_a_damaged_file_of_the_same_rows_is_filed_again(folder):
    first = semantic.load_vectors(folder=folder)
    expected = np.array(first.matrix)
    [name] = files(folder)
    del first
    gc.collect()
    # A crash after the file was named, before its pages reached the disk, leaves it short:
    # every later load failed on it (its size checked) until someone removed it by hand.
    os.truncate(folder / name, 100)
    again = semantic.load_vectors(folder=folder)
    assert files(folder) == [name]
    assert os.stat(folder / name).st_size == expected.nbytes
    assert np.array_equal(again.matrix, expected)


def test_a_build_that_fails_leaves_no_file(folder, monkeypatch):
    def broken(block):
        raise RuntimeError("disk full")

    monkeypatch.setattr(semantic, "quantised", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        semantic.load_vectors(folder=folder)
    assert files(folder) == []


def test_a_worker_keeps_its_vectors_filed_only_with_the_store_cache_and_a_cache_folder(settings, tmp_path):
    settings.EMBEDDING_CACHE_DIR = str(tmp_path)
    settings.STORE_CACHE = False
    assert semantic.shared_folder() is None  # nothing is kept: a file per search would only cost
    settings.STORE_CACHE = True
    assert semantic.shared_folder() == tmp_path / semantic.encoder.MODEL_NAME / "vectors"
    settings.EMBEDDING_CACHE_DIR = ""
    assert semantic.shared_folder() is None


def test_small_matrices_stay_in_memory(tmp_path):
    # 173 cases' rows are far below SHARED_FROM (8 MB): not worth a file.
    loaded = semantic.load_vectors(folder=tmp_path / "vectors")
    assert isinstance(loaded.matrix, np.ndarray) and loaded.matrix.flags.writeable
    assert not (tmp_path / "vectors").exists()


def test_the_sketch_of_rows_in_a_file_is_filed_beside_them_and_shared(folder):
    in_memory = semantic.load_vectors()
    first = semantic.load_vectors(folder=folder)
    second = semantic.load_vectors(folder=folder)  # as the other worker reads them
    [rows_file] = files(folder)
    projection, sketched = first.sketched_rows()
    assert isinstance(sketched, large_arrays.FileRows)  # read, not held by each worker
    [sketch_file] = [name for name in files(folder) if name != rows_file]
    assert second.sketched_rows()[1].path.name == sketch_file  # the same directions: one file
    assert readers(folder / sketch_file) == 2 and mappings(folder / sketch_file) == 0
    expected_projection, expected = in_memory.sketched_rows()
    assert isinstance(expected, np.ndarray)  # rows in memory keep their sketch in memory
    assert np.array_equal(np.asarray(sketched), expected)
    assert np.array_equal(projection.basis, expected_projection.basis)
    assert in_memory.scale is not None
    query = in_memory.matrix[3].astype(np.float32) * in_memory.scale[3]
    query /= np.linalg.norm(query)
    assert np.array_equal(first._approximate(query), in_memory._approximate(query))
